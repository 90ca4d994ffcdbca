#!/usr/bin/env python3
"""Plan (and optionally apply) a tidy-up of a downloads folder. Never deletes."""
import argparse
import hashlib
import shutil
import time
from datetime import datetime
from pathlib import Path

DOCS = {".pdf", ".docx", ".xlsx", ".pptx", ".txt", ".md", ".csv"}
IMAGES = {".jpg", ".jpeg", ".png", ".heic", ".gif", ".webp"}
ARCHIVES = {".zip", ".7z", ".gz", ".tgz", ".bz2", ".xz"}
INSTALLERS = {".dmg", ".pkg", ".exe", ".msi", ".deb", ".rpm", ".appimage"}
DAY = 86400


def sha256(p: Path) -> str:
    h = hashlib.sha256()
    with p.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def free_name(dest: Path) -> Path:
    if not dest.exists():
        return dest
    for i in range(2, 1000):
        cand = dest.with_name(f"{dest.stem} ({i}){dest.suffix}")
        if not cand.exists():
            return cand
    raise RuntimeError(f"too many name clashes for {dest}")


def plan(root: Path):
    now = time.time()
    files = sorted((p for p in root.iterdir() if p.is_file() and not p.name.startswith(".")),
                   key=lambda p: p.stat().st_mtime)
    seen: dict[str, Path] = {}
    for p in files:
        st = p.stat()
        if now - st.st_mtime < DAY:
            continue
        month = datetime.fromtimestamp(st.st_mtime).strftime("%Y-%m")
        ext = p.suffix.lower()
        digest = sha256(p)
        if digest in seen:
            yield p, root / "_review" / "duplicates" / p.name
            continue
        seen[digest] = p
        if ext in DOCS:
            yield p, root / "Documents" / month / p.name
        elif ext in IMAGES:
            yield p, root / "Images" / month / p.name
        elif ext in ARCHIVES:
            yield p, root / "Archives" / p.name
        elif ext in INSTALLERS and now - st.st_mtime > 30 * DAY:
            yield p, root / "_review" / "installers" / p.name


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", type=Path)
    ap.add_argument("--apply", action="store_true")
    args = ap.parse_args()
    root = args.folder.expanduser().resolve()
    moves = list(plan(root))
    for src, dst in moves:
        print(f"{src.name}  ->  {dst.relative_to(root)}")
    print(f"\n{len(moves)} move(s) planned")
    if not args.apply:
        print("dry run; re-run with --apply to move files")
        return
    log = root / "_review" / f"moves-{datetime.now():%Y%m%d-%H%M%S}.tsv"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as lf:
        for src, dst in moves:
            dst.parent.mkdir(parents=True, exist_ok=True)
            final = free_name(dst)
            shutil.move(src, final)
            lf.write(f"{src}\t{final}\n")
    print(f"done; undo log at {log}")


if __name__ == "__main__":
    main()
