#!/usr/bin/env python3
"""Upload a release's artefacts to S3, then move the latest pointer."""
import argparse
import hashlib
import json
import mimetypes
import sys
from pathlib import Path

import boto3
from botocore.exceptions import ClientError

mimetypes.add_type("application/gzip", ".tgz")
mimetypes.add_type("text/plain", "SHA256SUMS")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def exists(s3, bucket: str, key: str) -> bool:
    try:
        s3.head_object(Bucket=bucket, Key=key)
        return True
    except ClientError as e:
        if e.response["Error"]["Code"] in ("404", "NoSuchKey"):
            return False
        raise


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bucket", required=True)
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("dist", type=Path)
    args = ap.parse_args()

    s3 = boto3.client("s3")
    base = f"{args.prefix}/{args.version}"
    files = sorted(p for p in args.dist.iterdir() if p.is_file())
    if not files:
        sys.exit(f"{args.dist} is empty")
    if exists(s3, args.bucket, f"{base}/{files[0].name}"):
        sys.exit(f"s3://{args.bucket}/{base}/ already has artefacts; bump the version instead of overwriting")

    for p in files:
        ctype = mimetypes.guess_type(p.name)[0] or "application/octet-stream"
        digest = sha256(p)
        s3.upload_file(str(p), args.bucket, f"{base}/{p.name}",
                       ExtraArgs={"ContentType": ctype, "Metadata": {"sha256": digest}})
        print(f"uploaded {p.name}  sha256={digest[:12]}…")

    s3.put_object(Bucket=args.bucket, Key=f"{args.prefix}/latest.json",
                  Body=json.dumps({"version": args.version}).encode(),
                  ContentType="application/json", CacheControl="max-age=60")
    print(f"latest -> {args.version}")


if __name__ == "__main__":
    main()
