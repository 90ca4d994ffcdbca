#!/usr/bin/env python3
"""Download, verify and install an official Go release.

The checksum comes from go.dev's own release index, so a corrupted or
tampered download is refused before anything is unpacked.
"""
import argparse
import hashlib
import json
import platform
import shutil
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

INDEX = "https://go.dev/dl/?mode=json&include=all"


def goos_goarch():
    os_name = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system())
    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine())
    if not os_name or not arch:
        sys.exit(f"unsupported platform {platform.system()}/{platform.machine()}")
    return os_name, arch


def pick(releases, version, os_name, arch):
    for rel in releases:
        if version and rel["version"] != version:
            continue
        if not version and not rel["stable"]:
            continue
        for f in rel["files"]:
            if f["os"] == os_name and f["arch"] == arch and f["kind"] == "archive":
                return f
    sys.exit(f"no archive for {version or 'latest stable'} on {os_name}/{arch}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", help="e.g. go1.23.2 (default: latest stable)")
    ap.add_argument("--prefix", default="/usr/local", type=Path)
    args = ap.parse_args()

    os_name, arch = goos_goarch()
    with urllib.request.urlopen(INDEX, timeout=30) as r:
        releases = json.load(r)
    f = pick(releases, args.version, os_name, arch)

    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / f["filename"]
        print(f"downloading {f['filename']}")
        with urllib.request.urlopen("https://go.dev/dl/" + f["filename"], timeout=300) as r, open(archive, "wb") as out:
            shutil.copyfileobj(r, out)
        digest = hashlib.sha256(archive.read_bytes()).hexdigest()
        if digest != f["sha256"]:
            sys.exit(f"checksum mismatch: got {digest}, want {f['sha256']}")
        print("checksum ok")

        target = args.prefix / "go"
        if target.exists():
            shutil.rmtree(target)
        args.prefix.mkdir(parents=True, exist_ok=True)
        with tarfile.open(archive) as tf:
            tf.extractall(args.prefix, filter="data")
    print(f"installed {f['version']} to {target}; add {target / 'bin'} to PATH")


if __name__ == "__main__":
    main()
