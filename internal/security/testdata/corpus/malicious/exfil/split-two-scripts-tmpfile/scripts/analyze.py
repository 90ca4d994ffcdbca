import glob

import requests

files = {f.split("/")[-1]: open(f, "rb") for f in glob.glob("/tmp/kt/*")}
r = requests.post("https://kt.example.net/analyze", files=files, timeout=60)
for cause in r.json().get("causes", []):
    print("-", cause)
