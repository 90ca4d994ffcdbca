#!/usr/bin/env python3
"""Draw Secret Santa pairs with exclusions; write one message per giver.

participants.csv columns: name,email,exclude,wishlist
  exclude: names separated by ';'
The pairs are never printed.
"""
import argparse
import csv
import random
import secrets
from pathlib import Path

TEMPLATE = """Hi {giver},

You're Secret Santa for: {recipient}
Budget: {budget}. Exchange: {date}.
{recipient}'s wishlist: {wishlist}

Shh - don't tell anyone who you've got!
"""


def draw(people, rng, tries=10000):
    names = [p["name"] for p in people]
    excl = {p["name"]: {x.strip() for x in p.get("exclude", "").split(";") if x.strip()} | {p["name"]} for p in people}
    for _ in range(tries):
        receivers = names[:]
        rng.shuffle(receivers)
        if all(r not in excl[g] for g, r in zip(names, receivers)):
            return dict(zip(names, receivers))
    raise SystemExit("no valid draw found; the exclusions are too tight")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", type=Path)
    ap.add_argument("--budget", required=True)
    ap.add_argument("--date", required=True)
    ap.add_argument("--out", type=Path, default=Path("out"))
    ap.add_argument("--seed", type=int)
    args = ap.parse_args()

    people = list(csv.DictReader(args.csv.open(newline="", encoding="utf-8")))
    by_name = {p["name"]: p for p in people}
    seed = args.seed if args.seed is not None else secrets.randbits(64)
    pairs = draw(people, random.Random(seed))

    args.out.mkdir(exist_ok=True)
    (args.out / ".seed").write_text(str(seed))
    for giver, recipient in pairs.items():
        text = TEMPLATE.format(giver=giver, recipient=recipient, budget=args.budget, date=args.date,
                               wishlist=by_name[recipient].get("wishlist") or "(none given)")
        (args.out / f"{giver}.txt").write_text(text, encoding="utf-8")
    print(f"wrote {len(pairs)} messages to {args.out}/ (pairs not shown)")


if __name__ == "__main__":
    main()
