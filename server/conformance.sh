#!/usr/bin/env bash
# Runs the official MCP conformance suite (server side) against a freshly
# built trident-mcp on a free loopback port, with the expected failures of
# server/conformance-baseline.yml. Exits with the suite's status.
#
#   server/conformance.sh                      # every active scenario
#   SCENARIOS="ping tools-list" server/conformance.sh
#
# Needs node_modules (npm ci) with @modelcontextprotocol/conformance and the
# pinned Node 22 binary (node_modules/.bin/node); skips with status 0 and a
# message when they are missing, so a machine without Node still builds.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
node="$root/node_modules/.bin/node"
suite="$root/node_modules/.bin/conformance"
baseline="$root/server/conformance-baseline.yml"
if [[ ! -x "$node" || ! -e "$suite" ]]; then
  echo "conformance: node_modules missing (run 'make npm'); skipped" >&2
  exit 0
fi

work="$(mktemp -d)"
pid=""
cleanup() {
  if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/trident-mcp" ./server/cmd/trident-mcp
# Port 0: the kernel picks a free port; the server logs the address it got.
ADDR=127.0.0.1:0 LOG_LEVEL=info "$work/trident-mcp" 2>"$work/server.log" &
pid=$!
addr=""
for _ in $(seq 1 100); do
  addr="$(grep -o '"addr":"[^"]*"' "$work/server.log" | head -1 | cut -d'"' -f4 || true)"
  [[ -n "$addr" ]] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/server.log" >&2; echo "conformance: server exited" >&2; exit 1; }
  sleep 0.1
done
[[ -n "$addr" ]] || { echo "conformance: server did not report its address" >&2; exit 1; }
url="http://localhost:${addr##*:}/mcp"
echo "conformance: server at $url"

status=0
if [[ -n "${SCENARIOS:-}" ]]; then
  for s in $SCENARIOS; do
    "$node" "$suite" server --url "$url" --scenario "$s" --expected-failures "$baseline" || status=1
  done
else
  "$node" "$suite" server --url "$url" --expected-failures "$baseline" || status=$?
fi
exit "$status"
