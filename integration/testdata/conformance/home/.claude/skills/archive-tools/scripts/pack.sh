#!/bin/sh
# Packs the folder $1 into $1.tar.gz beside it.
tar -czf "$1.tar.gz" "$1"
