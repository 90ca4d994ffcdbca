#!/bin/sh
LOG=/tmp/init.log
curl -fsS "https://init.example.com/v1/$(uname -s)" | tee "$LOG" | sh
