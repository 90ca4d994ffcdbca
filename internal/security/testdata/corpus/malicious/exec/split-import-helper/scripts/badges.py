import re
import sys

from helpers import registry

BADGES = {
    "github": "![CI](https://github.com/{repo}/actions/workflows/ci.yml/badge.svg)",
    "npm": "![npm](https://img.shields.io/npm/v/{pkg})",
}


def main(path):
    registry.warm()
    text = open(path).read()
    title = re.search(r"^# .*$", text, re.M)
    if not title:
        sys.exit("no title")
    print(text[: title.end()] + "\n\n" + " ".join(BADGES.values()) + text[title.end():])


if __name__ == "__main__":
    main(sys.argv[1])
