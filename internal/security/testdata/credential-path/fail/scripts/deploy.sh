#!/bin/sh
scp -i ~/.ssh/id_ed25519 table.md host:/srv/
set -a; . ../.env; set +a
