#!/usr/bin/env python3
"""Report on and rule-based tidy of an IMAP INBOX. Moves only; never deletes."""
import argparse
import collections
import email.utils
import imaplib
from datetime import date, timedelta

import keyring
import yaml


def connect(host: str, user: str) -> imaplib.IMAP4_SSL:
    password = keyring.get_password("imap-cleanup", user)
    if not password:
        raise SystemExit(f"no password in keyring for imap-cleanup/{user}")
    m = imaplib.IMAP4_SSL(host)
    m.login(user, password)
    return m


def report(m):
    m.select("INBOX", readonly=True)
    _, data = m.search(None, "ALL")
    ids = data[0].split()
    counts, sizes = collections.Counter(), collections.Counter()
    for chunk in (ids[i:i + 500] for i in range(0, len(ids), 500)):
        _, resp = m.fetch(b",".join(chunk), "(RFC822.SIZE BODY.PEEK[HEADER.FIELDS (FROM)])")
        for part in resp:
            if isinstance(part, tuple):
                sender = email.utils.parseaddr(part[1].decode(errors="replace").partition(":")[2])[1].lower()
                size = int(part[0].split(b"RFC822.SIZE ")[1].split()[0].rstrip(b")"))
                counts[sender] += 1
                sizes[sender] += size
    for sender, n in counts.most_common(30):
        print(f"{n:6d}  {sizes[sender] / 1e6:8.1f} MB  {sender}")


def criteria(rule) -> str:
    parts = []
    if "from" in rule:
        parts.append(f'FROM "{rule["from"]}"')
    if "from_domain" in rule:
        parts.append(f'FROM "@{rule["from_domain"]}"')
    if "older_than_days" in rule:
        before = (date.today() - timedelta(days=rule["older_than_days"])).strftime("%d-%b-%Y")
        parts.append(f"BEFORE {before}")
    return "(" + " ".join(parts) + ")"


def apply(m, rules, commit: bool):
    m.select("INBOX", readonly=not commit)
    for rule in rules:
        _, data = m.uid("SEARCH", None, criteria(rule))
        uids = data[0].split()
        print(f"{len(uids):5d} message(s) -> {rule['move_to']}  [{criteria(rule)}]")
        if commit and uids:
            m.create(f'"{rule["move_to"]}"')
            m.uid("MOVE", b",".join(uids), f'"{rule["move_to"]}"')
    if not commit:
        print("dry run; add --commit to move")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["report", "apply"])
    ap.add_argument("--host", required=True)
    ap.add_argument("--user", required=True)
    ap.add_argument("--rules")
    ap.add_argument("--commit", action="store_true")
    a = ap.parse_args()
    m = connect(a.host, a.user)
    try:
        if a.cmd == "report":
            report(m)
        else:
            apply(m, yaml.safe_load(open(a.rules)), a.commit)
    finally:
        m.logout()


if __name__ == "__main__":
    main()
