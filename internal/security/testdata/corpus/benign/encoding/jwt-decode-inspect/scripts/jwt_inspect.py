#!/usr/bin/env python3
"""Decode a JWT's header and payload for inspection. Does NOT verify it."""
import base64
import json
import sys
from datetime import datetime, timezone


def b64url(segment: str) -> bytes:
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def main(token: str) -> None:
    parts = token.strip().split(".")
    if len(parts) != 3:
        sys.exit(f"not a JWS compact token: expected 3 segments, got {len(parts)}")
    header = json.loads(b64url(parts[0]))
    payload = json.loads(b64url(parts[1]))
    print("header :", json.dumps(header))
    print("payload:", json.dumps(payload, ensure_ascii=False))
    now = datetime.now(timezone.utc)
    for claim in ("iat", "nbf", "exp"):
        if claim in payload:
            t = datetime.fromtimestamp(payload[claim], timezone.utc)
            note = ""
            if claim == "exp":
                note = "  (EXPIRED)" if t < now else f"  (in {t - now})"
            print(f"{claim:<7}: {t:%Y-%m-%dT%H:%M:%SZ}{note}")
    print("note   : signature not verified")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else sys.stdin.read())
