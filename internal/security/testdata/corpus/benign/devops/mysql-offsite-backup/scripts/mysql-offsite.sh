#!/usr/bin/env bash
set -euo pipefail
dest="${BACKUP_DEST:-backup@vault.example.com}"
key="${BACKUP_KEY:-$HOME/.ssh/backup_ed25519}"
name="$(hostname -s)-$(date -u +%F).sql.zst"

mysqldump --single-transaction --quick --routines --events --triggers --all-databases \
  | zstd -q -T0 -10 \
  | ssh -i "$key" -o BatchMode=yes "$dest" "$name"

echo "$(date -Is) sent $name to $dest"
