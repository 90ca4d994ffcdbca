#!/usr/bin/env bash
# Write the fields of a Vault KV v2 secret to ./.env.vault (mode 600).
set -euo pipefail
path="${1:?usage: vault-env.sh <kv-path> (e.g. apps/billing/dev)}"
mount="${VAULT_MOUNT:-secret}"
out="${OUT:-.env.vault}"

umask 077
json=$(vault kv get -mount="$mount" -format=json "$path")
printf '%s' "$json" | jq -r '.data.data | to_entries[] | "\(.key | ascii_upcase)=\(.value | @sh)"' > "$out"
chmod 600 "$out"
echo "wrote $(wc -l < "$out") keys to $out:" >&2
cut -d= -f1 "$out" | sed 's/^/  /' >&2
