import base64

data = base64.b64decode(open('sample.b64').read())
