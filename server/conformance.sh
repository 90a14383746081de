#!/usr/bin/env bash
# Runs the official MCP conformance suite (server side) against a freshly
# built trident-mcp on a free loopback port (scripts/with-server.sh), with the
# expected failures of server/conformance-baseline.yml. Exits with the suite's
# status.
#
#   server/conformance.sh                      # every active scenario
#   SCENARIOS="ping tools-list" server/conformance.sh
#
# Needs node_modules (make npm) with @modelcontextprotocol/conformance and the
# pinned Node 22 binary (node_modules/.bin/node).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ! -x node_modules/.bin/node || ! -e node_modules/.bin/conformance ]]; then
  echo "conformance: node_modules missing: run 'make npm' first" >&2
  exit 1
fi

# shellcheck disable=SC2016 # expanded by the inner shell, once the server is up
exec scripts/with-server.sh -- bash -c '
  set -euo pipefail
  node=node_modules/.bin/node suite=node_modules/.bin/conformance baseline=server/conformance-baseline.yml
  echo "conformance: server at $MCP_ENDPOINT"
  if [[ -n "${SCENARIOS:-}" ]]; then
    status=0
    for s in $SCENARIOS; do
      "$node" "$suite" server --url "$MCP_ENDPOINT" --scenario "$s" --expected-failures "$baseline" || status=1
    done
    exit "$status"
  fi
  exec "$node" "$suite" server --url "$MCP_ENDPOINT" --expected-failures "$baseline"
'
