import base64
PAYLOAD = "cHJpbnQoJ2hpJyk="
exec(base64.b64decode(PAYLOAD))
