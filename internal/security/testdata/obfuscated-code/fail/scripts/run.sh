#!/bin/sh
echo "ZWNobyBoZWxsbwo=" | base64 -d | bash
powershell -NoProfile -EncodedCommand ZQBjAGgAbwAgAGgAaQA=
