#!/usr/bin/env bash
# Runs the official MCP conformance suite (server side) against a freshly
# built trident-mcp on a free loopback port (scripts/with-server.sh), in
# both release lines the project pins:
#
#   0.1.16          its active scenarios, expected failures in
#                   server/conformance-baseline.yml;
#   0.2.0-alpha.12  (npm alias mcp-conformance-0-2) the scenarios each
#                   revision requires, once at the 2025-11-25 wire and once
#                   at the stateless 2026-07-28 wire, expected failures in
#                   server/conformance-baseline-0.2.yml.
#
# Exits non-zero when any run fails (an unexpected failure, or a baseline
# entry that now passes).
#
#   server/conformance.sh                      # every run
#   SUITES="0.2" server/conformance.sh         # one release line (0.1 or 0.2)
#   SCENARIOS="ping tools-list" server/conformance.sh   # these scenarios, in each line that has them
#
# Needs node_modules (make npm) with both suites and the pinned Node 22
# binary (node_modules/.bin/node).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

for f in node_modules/.bin/node node_modules/@modelcontextprotocol/conformance/dist/index.js node_modules/mcp-conformance-0-2/dist/index.js; do
  if [[ ! -e $f ]]; then
    echo "conformance: $f missing: run 'make npm' first" >&2
    exit 1
  fi
done

# shellcheck disable=SC2016 # expanded by the inner shell, once the server is up
exec scripts/with-server.sh -- bash -c '
  set -uo pipefail
  node=node_modules/.bin/node
  v01=node_modules/@modelcontextprotocol/conformance/dist/index.js
  v02=node_modules/mcp-conformance-0-2/dist/index.js
  echo "conformance: server at $MCP_ENDPOINT"
  status=0
  run() { # label, suite, baseline, extra args...
    local label=$1 suite=$2 baseline=$3; shift 3
    echo "=== conformance $label ==="
    if [[ -n "${SCENARIOS:-}" ]]; then
      local listed
      listed=$("$node" "$suite" list --server "$@" 2>/dev/null || true)
      for s in $SCENARIOS; do
        grep -q -- "- $s\b" <<<"$listed" || continue
        # --requirements fixes the scenario set, so one scenario runs at
        # that revision through --spec-version.
        "$node" "$suite" server --url "$MCP_ENDPOINT" --scenario "$s" --expected-failures "$baseline" \
          $(sed "s/--requirements/--spec-version/" <<<"$*") || status=1
      done
      return
    fi
    "$node" "$suite" server --url "$MCP_ENDPOINT" --expected-failures "$baseline" "$@" || status=1
  }
  if [[ " ${SUITES:-0.1 0.2} " == *" 0.1 "* ]]; then
    run "0.1.16" "$v01" server/conformance-baseline.yml
  fi
  if [[ " ${SUITES:-0.1 0.2} " == *" 0.2 "* ]]; then
    run "0.2 at 2025-11-25" "$v02" server/conformance-baseline-0.2.yml --requirements 2025-11-25
    run "0.2 at 2026-07-28" "$v02" server/conformance-baseline-0.2.yml --requirements 2026-07-28
  fi
  exit "$status"
'
