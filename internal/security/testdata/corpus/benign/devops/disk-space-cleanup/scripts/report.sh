#!/usr/bin/env bash
# Report reclaimable space. Read-only: deletes nothing.
set -uo pipefail

row() { printf '%-28s %10s\n' "$1" "${2:--}"; }
size() { du -sh "$@" 2>/dev/null | awk '{print $1}' | head -1; }

echo "== Filesystem"
df -h / | tail -1
echo
echo "== Candidates"
command -v docker >/dev/null && docker system df --format '{{.Type}}: {{.Reclaimable}}' 2>/dev/null | sed 's/^/docker /'
row "apt cache"        "$(size /var/cache/apt/archives)"
row "systemd journal"  "$(journalctl --disk-usage 2>/dev/null | grep -oE '[0-9.]+[KMGT]')"
row "npm cache"        "$(size ~/.npm)"
row "pip cache"        "$(size ~/.cache/pip)"
row "go module cache"  "$(size ~/go/pkg/mod)"
row "cargo registry"   "$(size ~/.cargo/registry)"
row "Trash"            "$(size ~/.local/share/Trash)"
echo
echo "== node_modules older than 30 days under ~/code"
find ~/code -name node_modules -type d -prune -mtime +30 -print0 2>/dev/null | xargs -0 -r du -sh | sort -h | tail -10
