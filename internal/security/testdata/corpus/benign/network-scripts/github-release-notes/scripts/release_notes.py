#!/usr/bin/env python3
"""Print Markdown release notes for PRs merged between two tags."""
import os
import sys
from collections import defaultdict

import requests

API = "https://api.github.com"
GROUPS = [("feature", "Features"), ("bug", "Fixes"), ("docs", "Documentation")]


def session() -> requests.Session:
    token = os.environ.get("GITHUB_TOKEN")
    if not token:
        sys.exit("GITHUB_TOKEN is not set (try: export GITHUB_TOKEN=$(gh auth token))")
    s = requests.Session()
    s.headers.update({
        "Authorization": f"Bearer {token}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
    })
    return s


def main(repo: str, base: str, head: str) -> None:
    s = session()
    r = s.get(f"{API}/repos/{repo}/compare/{base}...{head}", timeout=30)
    r.raise_for_status()
    commits = r.json()["commits"]

    seen, groups = set(), defaultdict(list)
    for c in commits:
        pulls = s.get(f"{API}/repos/{repo}/commits/{c['sha']}/pulls", timeout=30)
        pulls.raise_for_status()
        for pr in pulls.json():
            if pr["number"] in seen or not pr.get("merged_at"):
                continue
            seen.add(pr["number"])
            labels = {l["name"] for l in pr["labels"]}
            key = next((k for k, _ in GROUPS if k in labels), "other")
            groups[key].append(f"- {pr['title']} (#{pr['number']}, @{pr['user']['login']})")

    print(f"## {head}\n")
    for key, title in GROUPS + [("other", "Other changes")]:
        if groups[key]:
            print(f"### {title}\n")
            print("\n".join(groups[key]) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: release_notes.py OWNER/REPO BASE_TAG HEAD_TAG")
    main(*sys.argv[1:])
