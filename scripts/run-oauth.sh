#!/usr/bin/env bash
# Starts the dev OAuth issuer and the MCP server in OAuth mode beside it, for
# development: `make run-oauth`. Stops both on Ctrl-C.
#
# The issuer signs in the dev user (dev@tridenttaxis.test / dev-password) on
# its HTML pages; the server refuses anonymous calls with the seed's 401.
set -euo pipefail
cd "$(dirname "$0")/.."

ADDR=${ADDR:-127.0.0.1:8080}
ISSUER_ADDR=${ISSUER_ADDR:-127.0.0.1:9999}
PUBLIC_BASE_URL=${PUBLIC_BASE_URL:-http://$ADDR}
ISSUER="http://$ISSUER_ADDR/auth/v1"

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

go build -o "$work/dev-issuer" ./tools/dev-issuer
go build -o "$work/trident-mcp" ./server/cmd/trident-mcp

"$work/dev-issuer" --addr "$ISSUER_ADDR" --resource "$PUBLIC_BASE_URL/mcp" ${DEV_ISSUER_FLAGS:-} &
pids+=($!)
echo "dev issuer: $ISSUER (user dev@tridenttaxis.test / dev-password)"

ADDR="$ADDR" PUBLIC_BASE_URL="$PUBLIC_BASE_URL" MCP_REQUIRE_OAUTH=true OAUTH_ISSUER="$ISSUER" "$work/trident-mcp" &
pids+=($!)
echo "MCP endpoint (OAuth mode): $PUBLIC_BASE_URL/mcp"
wait -n "${pids[@]}"
