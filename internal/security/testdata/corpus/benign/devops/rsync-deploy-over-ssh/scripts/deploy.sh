#!/usr/bin/env bash
set -euo pipefail

src="${1:?usage: deploy.sh BUILD_DIR}"
host="${DEPLOY_HOST:?set DEPLOY_HOST, e.g. deploy@web1.example.com}"
root="${DEPLOY_ROOT:-/srv/app}"
health="${HEALTH_URL:-http://127.0.0.1:8080/healthz}"
keep=5
release="$(date -u +%Y%m%dT%H%M%SZ)"

echo "==> uploading to $host:$root/releases/$release"
ssh "$host" "mkdir -p '$root/releases/$release'"
rsync -az --delete --link-dest="$root/current/" -e "ssh -o BatchMode=yes" \
  "$src"/ "$host:$root/releases/$release/"

echo "==> switching"
ssh "$host" bash -s -- "$root" "$release" "$health" "$keep" <<'REMOTE'
set -euo pipefail
root=$1 release=$2 health=$3 keep=$4
cd "$root"
prev=$(readlink current || true)
for f in shared/*; do [ -e "$f" ] && ln -sfn "$root/$f" "releases/$release/$(basename "$f")"; done
ln -sfn "releases/$release" current.tmp && mv -T current.tmp current
sudo systemctl reload app
for i in $(seq 1 20); do
  if curl -fsS -o /dev/null "$health"; then ok=1; break; fi
  sleep 1
done
if [ "${ok:-0}" != 1 ]; then
  echo "health check failed; rolling back to $prev" >&2
  [ -n "$prev" ] && ln -sfn "$prev" current.tmp && mv -T current.tmp current && sudo systemctl reload app
  exit 1
fi
ls -1dt releases/* | tail -n +$((keep + 1)) | xargs -r rm -rf
echo "live: $release"
REMOTE
