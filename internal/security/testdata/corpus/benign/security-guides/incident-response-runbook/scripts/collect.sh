#!/usr/bin/env bash
# Collect volatile state from a suspect Linux host into a case folder.
# Read-only: nothing here modifies the system under investigation.
set -uo pipefail

case_dir="${1:?usage: collect.sh /path/to/external/case-folder}"
mkdir -p "$case_dir"
ts() { date -u +%Y-%m-%dT%H:%M:%SZ; }

run() {
  local name="$1"; shift
  echo "[$(ts)] $*" >> "$case_dir/commands.log"
  "$@" > "$case_dir/$name.txt" 2>&1 || echo "exit $?" >> "$case_dir/$name.txt"
}

run processes   ps auxwwf
run sockets     ss -tunap
run open-net    lsof -nP -i
run logins      who -a
run last        last -Faiwx
run modules     lsmod
run mounts      findmnt -l
run firewall    iptables-save
run cron-system cat /etc/crontab
run users       getent passwd

# Hash the executable of every running process.
for p in /proc/[0-9]*; do
  exe=$(readlink "$p/exe" 2>/dev/null) || continue
  printf '%s %s\n' "${p#/proc/}" "$exe"
done | sort -u -k2 > "$case_dir/process-exes.txt"
cut -d' ' -f2 "$case_dir/process-exes.txt" | sort -u | xargs -r sha256sum > "$case_dir/process-exes.sha256" 2>/dev/null

for home in /root /home/*; do
  [ -f "$home/.ssh/authorized_keys" ] || continue
  echo "== $home" >> "$case_dir/authorized_keys.txt"
  cat "$home/.ssh/authorized_keys" >> "$case_dir/authorized_keys.txt"
done

echo "[$(ts)] done" >> "$case_dir/commands.log"
