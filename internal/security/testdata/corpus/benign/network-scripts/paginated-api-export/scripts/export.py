#!/usr/bin/env python3
import argparse
import json
import os
import sys
import time
from pathlib import Path

import requests


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("out", type=Path)
    ap.add_argument("--cursor-field")
    ap.add_argument("--items-field", default="data")
    ap.add_argument("--page-param")
    ap.add_argument("--per-page", type=int, default=100)
    args = ap.parse_args()

    token = os.environ.get("API_TOKEN") or sys.exit("API_TOKEN is not set")
    s = requests.Session()
    s.headers["Authorization"] = f"Bearer {token}"
    ckpt = args.out.with_suffix(args.out.suffix + ".ckpt")
    state = json.loads(ckpt.read_text()) if ckpt.exists() else {"cursor": None, "page": 1, "count": 0}

    with args.out.open("a") as out:
        while True:
            params = {"limit": args.per_page}
            if args.cursor_field and state["cursor"]:
                params["cursor"] = state["cursor"]
            if args.page_param:
                params[args.page_param] = state["page"]
            r = s.get(args.url, params=params, timeout=60)
            if r.status_code == 429:
                time.sleep(float(r.headers.get("Retry-After", 5)))
                continue
            r.raise_for_status()
            body = r.json()
            items = body.get(args.items_field, [])
            for it in items:
                out.write(json.dumps(it, ensure_ascii=False) + "\n")
            out.flush()
            state["count"] += len(items)
            if args.cursor_field:
                state["cursor"] = body.get(args.cursor_field)
                done = not state["cursor"]
            else:
                state["page"] += 1
                done = len(items) < args.per_page
            ckpt.write_text(json.dumps(state))
            print(f"{state['count']} records", file=sys.stderr)
            if done:
                break
    ckpt.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
