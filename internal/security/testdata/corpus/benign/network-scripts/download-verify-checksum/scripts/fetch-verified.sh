#!/usr/bin/env bash
set -euo pipefail
url="${1:?usage: fetch-verified.sh URL SUMS_URL [SIG_URL]}"
sums_url="${2:?missing SUMS_URL}"
sig_url="${3:-}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
name=$(basename "${url%%\?*}")

curl -fsSL --retry 3 -o "$tmp/$name" "$url"
curl -fsSL --retry 3 -o "$tmp/SUMS" "$sums_url"

if [[ -n "$sig_url" ]]; then
  curl -fsSL -o "$tmp/SUMS.sig" "$sig_url"
  gpg --verify "$tmp/SUMS.sig" "$tmp/SUMS"
fi

expected=$(awk -v n="$name" '$2 == n || $2 == "*"n {print $1}' "$tmp/SUMS")
[[ -n "$expected" ]] || { echo "no checksum for $name in SUMS" >&2; exit 1; }
actual=$(sha256sum "$tmp/$name" | cut -d' ' -f1)
if [[ "$expected" != "$actual" ]]; then
  echo "checksum mismatch for $name: expected $expected, got $actual" >&2
  exit 1
fi
mv "$tmp/$name" "./$name"
echo "verified ./$name ($actual)"
