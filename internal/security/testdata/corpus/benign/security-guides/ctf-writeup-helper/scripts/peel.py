#!/usr/bin/env python3
"""Peel layered encodings off a CTF string until a flag appears.

Usage: peel.py 'ENCODED' [--prefix flag{]
Tries base64, base32, hex, rot13 and zlib in turn, printing every layer.
Only decodes; never executes what it finds.
"""
import argparse
import base64
import binascii
import codecs
import zlib


def candidates(data: bytes):
    for name, fn in (
        ("base64", lambda d: base64.b64decode(d, validate=True)),
        ("base32", base64.b32decode),
        ("hex", lambda d: binascii.unhexlify(d.strip())),
        ("zlib", zlib.decompress),
        ("rot13", lambda d: codecs.decode(d.decode("ascii"), "rot13").encode()),
    ):
        try:
            out = fn(data)
        except Exception:
            continue
        if out and out != data:
            yield name, out


def peel(data: bytes, prefix: bytes, depth: int = 0, max_depth: int = 12):
    if prefix in data:
        return [("found", data)]
    if depth >= max_depth:
        return None
    for name, out in candidates(data):
        rest = peel(out, prefix, depth + 1, max_depth)
        if rest is not None:
            return [(name, out)] + rest
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("encoded")
    ap.add_argument("--prefix", default="flag{")
    args = ap.parse_args()
    path = peel(args.encoded.encode(), args.prefix.encode())
    if path is None:
        print("no flag found within 12 layers")
        return
    for step, value in path:
        print(f"{step:>7}: {value[:120]!r}")


if __name__ == "__main__":
    main()
