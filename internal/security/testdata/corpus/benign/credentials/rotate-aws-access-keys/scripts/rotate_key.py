#!/usr/bin/env python3
"""Rotate the access key of an AWS CLI profile without downtime."""
import argparse
import configparser
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import boto3
from botocore.exceptions import ClientError

CREDS = Path(os.environ.get("AWS_SHARED_CREDENTIALS_FILE", Path.home() / ".aws" / "credentials"))


def write_profile(profile: str, key_id: str, secret: str) -> None:
    cfg = configparser.RawConfigParser()
    cfg.read(CREDS)
    if not cfg.has_section(profile):
        sys.exit(f"{CREDS} has no [{profile}] section")
    cfg.set(profile, "aws_access_key_id", key_id)
    cfg.set(profile, "aws_secret_access_key", secret)
    shutil.copy2(CREDS, CREDS.with_suffix(".bak"))
    fd, tmp = tempfile.mkstemp(dir=CREDS.parent, prefix=".credentials.")
    with os.fdopen(fd, "w") as f:
        cfg.write(f)
    os.chmod(tmp, 0o600)
    os.replace(tmp, CREDS)


def wait_until_valid(key_id: str, secret: str) -> None:
    sts = boto3.client("sts", aws_access_key_id=key_id, aws_secret_access_key=secret)
    for _ in range(20):
        try:
            sts.get_caller_identity()
            return
        except ClientError:
            time.sleep(3)
    sys.exit("new key did not become valid within 60 s; old key left active")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--profile", required=True)
    ap.add_argument("--delete-inactive", action="store_true")
    args = ap.parse_args()

    iam = boto3.Session(profile_name=args.profile).client("iam")
    user = boto3.Session(profile_name=args.profile).client("sts").get_caller_identity()["Arn"].split("/")[-1]
    keys = iam.list_access_keys(UserName=user)["AccessKeyMetadata"]

    if args.delete_inactive:
        for k in keys:
            if k["Status"] == "Inactive":
                iam.delete_access_key(UserName=user, AccessKeyId=k["AccessKeyId"])
                print(f"deleted inactive key {k['AccessKeyId']}")
        return

    if len(keys) >= 2:
        sys.exit("user already has two keys; run with --delete-inactive or delete one first")
    old = keys[0]["AccessKeyId"] if keys else None

    new = iam.create_access_key(UserName=user)["AccessKey"]
    write_profile(args.profile, new["AccessKeyId"], new["SecretAccessKey"])
    wait_until_valid(new["AccessKeyId"], new["SecretAccessKey"])
    print(f"new key {new['AccessKeyId']} active and written to [{args.profile}]")

    if old:
        iam.update_access_key(UserName=user, AccessKeyId=old, Status="Inactive")
        print(f"old key {old} deactivated; delete it later with --delete-inactive")


if __name__ == "__main__":
    main()
