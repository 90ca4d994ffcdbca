#!/usr/bin/env python3
"""Resumable, rate-limited batch runner for chat completions."""
import argparse
import asyncio
import json
import os
import random
import sys
from pathlib import Path

import httpx


def load_done(path: Path) -> set:
    if not path.exists():
        return set()
    return {json.loads(line)["id"] for line in path.open() if line.strip()}


async def call(client, model, item, retries=6):
    delay = 1.0
    for attempt in range(retries):
        r = await client.post("/chat/completions", json={"model": model, "messages": item["messages"]})
        if r.status_code == 200:
            body = r.json()
            return {"id": item["id"], "output": body["choices"][0]["message"]["content"], "usage": body.get("usage")}
        if r.status_code == 429 or r.status_code >= 500:
            wait = float(r.headers.get("retry-after", delay))
            await asyncio.sleep(wait + random.random())
            delay = min(delay * 2, 60)
            continue
        return {"id": item["id"], "error": f"HTTP {r.status_code}: {r.text[:200]}"}
    return {"id": item["id"], "error": "gave up after retries"}


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input", type=Path)
    ap.add_argument("output", type=Path)
    ap.add_argument("--model", required=True)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--max-requests", type=int, default=0)
    args = ap.parse_args()

    key = os.environ.get("LLM_API_KEY")
    if not key:
        sys.exit("LLM_API_KEY is not set")
    base = os.environ.get("LLM_BASE_URL", "https://llm.example.com/v1")

    done = load_done(args.output)
    todo = [json.loads(l) for l in args.input.open() if l.strip()]
    todo = [t for t in todo if t["id"] not in done]
    if args.max_requests:
        todo = todo[: args.max_requests]
    print(f"{len(done)} done, {len(todo)} to go", file=sys.stderr)

    sem = asyncio.Semaphore(args.concurrency)
    async with httpx.AsyncClient(base_url=base, timeout=120,
                                 headers={"Authorization": f"Bearer {key}"}) as client:
        with args.output.open("a") as out:
            async def one(item):
                async with sem:
                    res = await call(client, args.model, item)
                out.write(json.dumps(res) + "\n")
                out.flush()
            await asyncio.gather(*(one(t) for t in todo))


if __name__ == "__main__":
    asyncio.run(main())
