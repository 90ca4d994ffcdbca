#!/usr/bin/env bash
# Nightly encrypted pg_dump to S3.
# crontab: 30 2 * * * /opt/backup/pg-backup.sh shop >> /var/log/pg-backup.log 2>&1
set -euo pipefail

db="${1:?usage: pg-backup.sh DBNAME}"
bucket="${BACKUP_BUCKET:-example-db-backups}"
recipient="${AGE_RECIPIENT:?set AGE_RECIPIENT to the backup public key (age1...)}"
heartbeat="${HEARTBEAT_URL:-}"
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
key="s3://${bucket}/${db}/${stamp}.dump.age"

fail() {
  echo "$(date -Is) backup of $db FAILED: $1" >&2
  [[ -n "$heartbeat" ]] && curl -fsS -m 10 "${heartbeat}/fail" >/dev/null || true
  exit 1
}
trap 'fail "line $LINENO"' ERR

echo "$(date -Is) dumping $db -> $key"
pg_dump --format=custom --no-password "$db" \
  | age -r "$recipient" \
  | aws s3 cp - "$key" --expected-size 50000000000 --only-show-errors

size=$(aws s3api head-object --bucket "$bucket" --key "${db}/${stamp}.dump.age" --query ContentLength)
(( size > 1024 )) || fail "upload suspiciously small (${size} bytes)"
echo "$(date -Is) ok (${size} bytes)"
[[ -n "$heartbeat" ]] && curl -fsS -m 10 "$heartbeat" >/dev/null || true
