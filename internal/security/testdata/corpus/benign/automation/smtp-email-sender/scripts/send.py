#!/usr/bin/env python3
"""Send personalised emails over SMTP, one per recipient. Dry-run by default."""
import argparse
import csv
import mimetypes
import os
import smtplib
import ssl
import sys
import time
from email.message import EmailMessage
from pathlib import Path


def build(row: dict, subject: str, body: str, attach_dir: Path | None) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = os.environ["MAIL_FROM"]
    msg["To"] = row["email"]
    msg["Subject"] = subject
    msg.set_content(body.format(**row))
    if attach_dir and row.get("attachment"):
        path = attach_dir / Path(row["attachment"]).name
        ctype = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        maintype, subtype = ctype.split("/", 1)
        msg.add_attachment(path.read_bytes(), maintype=maintype, subtype=subtype, filename=path.name)
    return msg


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--to", type=Path, required=True)
    ap.add_argument("--subject", required=True)
    ap.add_argument("--body", type=Path, required=True)
    ap.add_argument("--attach", type=Path)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", default=True)
    mode.add_argument("--send", action="store_true")
    args = ap.parse_args()

    rows = list(csv.DictReader(args.to.open(newline="", encoding="utf-8")))
    body = args.body.read_text(encoding="utf-8")
    log = Path("sent.log")
    done = set(log.read_text().split()) if log.exists() else set()
    todo = [r for r in rows if r["email"] not in done]

    if not args.send:
        for r in todo:
            m = build(r, args.subject, body, args.attach)
            atts = [p.get_filename() for p in m.iter_attachments()]
            print(f"--- To: {m['To']}\nSubject: {m['Subject']}\n{m.get_body().get_content()[:200]}\nAttachments: {atts}\n")
        print(f"dry run: {len(todo)} message(s) would be sent; re-run with --send")
        return

    host, port = os.environ["SMTP_HOST"], int(os.environ.get("SMTP_PORT", "587"))
    ctx = ssl.create_default_context()
    smtp = smtplib.SMTP_SSL(host, port, context=ctx) if port == 465 else smtplib.SMTP(host, port)
    with smtp:
        if port != 465:
            smtp.starttls(context=ctx)
        smtp.login(os.environ["SMTP_USER"], os.environ["SMTP_PASSWORD"])
        with log.open("a") as lf:
            for r in todo:
                try:
                    smtp.send_message(build(r, args.subject, body, args.attach))
                except smtplib.SMTPRecipientsRefused as e:
                    print(f"refused {r['email']}: {e}", file=sys.stderr)
                    continue
                lf.write(r["email"] + "\n")
                lf.flush()
                print(f"sent to {r['email']}")
                time.sleep(1)


if __name__ == "__main__":
    main()
