#!/usr/bin/env bash
# Install a verified kubectl binary into ~/.local/bin.
set -euo pipefail

version="${1:-$(curl -fsSL https://dl.k8s.io/release/stable.txt)}"
os=$(uname -s | tr '[:upper:]' '[:lower:]')
case "$(uname -m)" in
  x86_64) arch=amd64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) echo "unsupported architecture $(uname -m)" >&2; exit 1 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
base="https://dl.k8s.io/release/${version}/bin/${os}/${arch}"

echo "downloading kubectl ${version} (${os}/${arch})"
curl -fsSLo "$tmp/kubectl" "$base/kubectl"
curl -fsSLo "$tmp/kubectl.sha256" "$base/kubectl.sha256"

if command -v sha256sum >/dev/null; then
  echo "$(cat "$tmp/kubectl.sha256")  $tmp/kubectl" | sha256sum --check --status
else
  echo "$(cat "$tmp/kubectl.sha256")  $tmp/kubectl" | shasum -a 256 --check --status
fi
echo "checksum ok"

mkdir -p "$HOME/.local/bin"
install -m 0755 "$tmp/kubectl" "$HOME/.local/bin/kubectl"
case ":$PATH:" in
  *":$HOME/.local/bin:"*) ;;
  *) echo "add ~/.local/bin to PATH: export PATH=\"\$HOME/.local/bin:\$PATH\"" ;;
esac
"$HOME/.local/bin/kubectl" version --client
