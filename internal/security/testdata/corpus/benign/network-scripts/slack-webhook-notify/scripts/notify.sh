#!/usr/bin/env bash
# Post a message to Slack via the incoming webhook in $SLACK_WEBHOOK_URL.
# usage: notify.sh "headline" ["detail text"]
set -euo pipefail

: "${SLACK_WEBHOOK_URL:?SLACK_WEBHOOK_URL is not set}"
headline="${1:?usage: notify.sh \"headline\" [\"detail\"]}"
detail="${2:-}"

payload=$(jq -n --arg h "$headline" --arg d "$detail" '{
  text: $h,
  blocks: ([{type: "section", text: {type: "mrkdwn", text: $h}}]
    + (if $d == "" then [] else [{type: "context", elements: [{type: "mrkdwn", text: $d}]}] end))
}')

curl --fail-with-body -sS -X POST \
  -H 'Content-Type: application/json' \
  --data "$payload" \
  "$SLACK_WEBHOOK_URL" >/dev/null
echo "posted to Slack"
