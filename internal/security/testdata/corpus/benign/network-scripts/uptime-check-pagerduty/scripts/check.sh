#!/usr/bin/env bash
set -uo pipefail

list="${1:?usage: check.sh endpoints.txt}"
: "${PD_ROUTING_KEY:?PD_ROUTING_KEY is not set}"
state="${STATE_DIR:-$HOME/.cache/uptime-check}"
mkdir -p "$state"

pd_event() { # action url summary
  jq -n --arg k "$PD_ROUTING_KEY" --arg a "$1" --arg u "$2" --arg s "$3" --arg h "$(hostname -s)" '{
    routing_key: $k, event_action: $a, dedup_key: $u,
    payload: {summary: $s, source: $h, severity: "critical", custom_details: {url: $u}}
  }' | curl -sS --fail -X POST -H 'Content-Type: application/json' \
        --data @- https://events.pagerduty.com/v2/enqueue >/dev/null
}

while IFS= read -r url; do
  [[ -z "$url" || "$url" == \#* ]] && continue
  f="$state/$(printf '%s' "$url" | sha1sum | cut -c1-16)"
  out=$(curl -sS -o /dev/null -m 10 -w '%{http_code} %{time_total}' "$url" 2>&1)
  code=${out%% *}
  if [[ "$code" =~ ^2|^3 ]]; then
    if [[ -f "$f.down" ]]; then
      pd_event resolve "$url" "$url recovered" && rm -f "$f.down"
    fi
    rm -f "$f.fail"
    echo "$(date -Is) OK   $url $out"
  else
    if [[ -f "$f.fail" && ! -f "$f.down" ]]; then
      pd_event trigger "$url" "$url is down ($out)" && touch "$f.down"
    fi
    touch "$f.fail"
    echo "$(date -Is) FAIL $url $out"
  fi
done < "$list"
