#!/usr/bin/env python3
"""Replace local asset references in an HTML file with base64 data URLs."""
import argparse
import base64
import mimetypes
import re
import sys
from pathlib import Path

ATTR = re.compile(r'(?P<pre>\b(?:src|href)=")(?P<url>[^"]+)(?P<post>")')
CSS_URL = re.compile(r'url\((?P<q>[\'"]?)(?P<url>[^\'")]+)(?P=q)\)')


def to_data_url(base: Path, ref: str, max_bytes: int) -> str | None:
    if re.match(r"^(?:[a-z]+:|//|#)", ref, re.I):
        return None  # remote, data: already, or fragment
    path = (base / ref).resolve()
    if not path.is_file() or not path.is_relative_to(base.resolve()):
        return None
    data = path.read_bytes()
    if len(data) > max_bytes:
        print(f"skip {ref}: {len(data) // 1024} KB over limit", file=sys.stderr)
        return None
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("html", type=Path)
    ap.add_argument("-o", "--output", type=Path, required=True)
    ap.add_argument("--max-kb", type=int, default=64)
    args = ap.parse_args()
    base, limit = args.html.parent, args.max_kb * 1024
    text = args.html.read_text(encoding="utf-8")

    def attr(m):
        d = to_data_url(base, m["url"], limit)
        return f'{m["pre"]}{d}{m["post"]}' if d else m[0]

    def css(m):
        d = to_data_url(base, m["url"], limit)
        return f'url("{d}")' if d else m[0]

    out = CSS_URL.sub(css, ATTR.sub(attr, text))
    args.output.write_text(out, encoding="utf-8")
    print(f"wrote {args.output} ({len(out) // 1024} KB)")


if __name__ == "__main__":
    main()
