#!/usr/bin/env python3
"""Fetch URLs politely: robots.txt, per-host delay, cache, backoff."""
import argparse
import hashlib
import time
import urllib.robotparser
from pathlib import Path
from urllib.parse import urlsplit

import requests

UA = "ResearchBot/1.0 (+mailto:data-team@example.org)"


class Polite:
    def __init__(self, delay: float):
        self.delay = delay
        self.last: dict[str, float] = {}
        self.robots: dict[str, urllib.robotparser.RobotFileParser] = {}
        self.s = requests.Session()
        self.s.headers["User-Agent"] = UA

    def allowed(self, url: str) -> bool:
        parts = urlsplit(url)
        base = f"{parts.scheme}://{parts.netloc}"
        if base not in self.robots:
            rp = urllib.robotparser.RobotFileParser(base + "/robots.txt")
            rp.read()
            self.robots[base] = rp
        return self.robots[base].can_fetch(UA, url)

    def wait(self, url: str) -> None:
        host = urlsplit(url).netloc
        rp = self.robots.get(f"{urlsplit(url).scheme}://{host}")
        delay = max(self.delay, (rp.crawl_delay(UA) or 0) if rp else 0)
        elapsed = time.monotonic() - self.last.get(host, 0)
        if elapsed < delay:
            time.sleep(delay - elapsed)
        self.last[host] = time.monotonic()

    def get(self, url: str) -> str | None:
        for attempt in range(5):
            self.wait(url)
            r = self.s.get(url, timeout=30)
            if r.status_code in (429, 503):
                time.sleep(float(r.headers.get("Retry-After", 30 * (attempt + 1))))
                continue
            if r.status_code == 403:
                print(f"403 on {url}: stopping, the site is refusing automated access")
                raise SystemExit(1)
            r.raise_for_status()
            return r.text
        return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("urls", type=Path)
    ap.add_argument("--out", type=Path, default=Path("pages"))
    ap.add_argument("--delay", type=float, default=2.0)
    args = ap.parse_args()
    if args.delay < 2.0:
        raise SystemExit("--delay below 2 s is not allowed")
    args.out.mkdir(exist_ok=True)
    p = Polite(args.delay)
    for url in (l.strip() for l in args.urls.read_text().splitlines()):
        if not url or url.startswith("#"):
            continue
        cache = args.out / (hashlib.sha1(url.encode()).hexdigest() + ".html")
        if cache.exists():
            continue
        if not p.allowed(url):
            print(f"robots.txt disallows {url}; skipped")
            continue
        html = p.get(url)
        if html is not None:
            cache.write_text(html, encoding="utf-8")
            print(f"saved {url}")


if __name__ == "__main__":
    main()
