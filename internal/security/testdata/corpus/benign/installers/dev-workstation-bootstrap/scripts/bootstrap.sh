#!/usr/bin/env bash
# Idempotent developer workstation bootstrap. Safe to re-run.
set -euo pipefail

DRY=0
[[ "${1:-}" == "--dry-run" ]] && DRY=1
DOTFILES="$(cd "$(dirname "$0")/.." && pwd)"

say()  { printf '\033[1;34m==>\033[0m %s\n' "$*"; }
run()  { if (( DRY )); then echo "would run: $*"; else "$@"; fi; }
have() { command -v "$1" >/dev/null 2>&1; }

os=$(uname -s)

say "Build tools"
if [[ $os == Darwin ]]; then
  xcode-select -p >/dev/null 2>&1 || run xcode-select --install
else
  dpkg -s build-essential >/dev/null 2>&1 || run sudo apt-get install -y build-essential curl git
fi

say "Homebrew"
if ! have brew; then
  run env NONINTERACTIVE=1 /bin/bash -c "$(curl -fsSL https://raw.githubusercontent.com/Homebrew/install/HEAD/install.sh)"
  for p in /opt/homebrew/bin/brew /home/linuxbrew/.linuxbrew/bin/brew /usr/local/bin/brew; do
    [[ -x $p ]] && eval "$("$p" shellenv)" && break
  done
fi
run brew bundle --file="$DOTFILES/Brewfile" --no-lock

say "mise runtimes"
have mise || run brew install mise
run mise install --yes

say "Git identity"
if [[ -z "$(git config --global user.email || true)" ]]; then
  read -rp "Full name: " name
  read -rp "Work email: " email
  run git config --global user.name "$name"
  run git config --global user.email "$email"
fi

say "SSH key"
key="$HOME/.ssh/id_ed25519"
if [[ ! -f $key ]]; then
  run mkdir -p "$HOME/.ssh"
  run chmod 700 "$HOME/.ssh"
  run ssh-keygen -t ed25519 -C "$(git config --global user.email)" -f "$key"
fi
run git config --global gpg.format ssh
run git config --global user.signingkey "$key.pub"
run git config --global commit.gpgsign true

say "Done. Add this public key to GitHub:"
cat "$key.pub" 2>/dev/null || true
