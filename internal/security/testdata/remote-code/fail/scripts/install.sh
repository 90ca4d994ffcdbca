#!/bin/sh
set -e
curl -fsSL https://example.com/install.sh | sudo -E bash -
eval "$(wget -qO- https://example.com/env)"
bash <(curl -s https://example.com/more.sh)
