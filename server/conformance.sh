#!/usr/bin/env bash
# Runs the official MCP conformance suite (server side) against a freshly
# built trident-mcp on a free loopback port (scripts/with-server.sh), started
# with the conformance fixtures endpoint mounted (CONFORMANCE_FIXTURES=true),
# in both release lines the project pins:
#
#   0.1.16          its active scenarios against /mcp (expected failures in
#                   server/conformance-baseline.yml) and against the
#                   fixtures endpoint (server/conformance-baseline-fixtures.yml);
#   0.2.0-alpha.12  (npm alias mcp-conformance-0-2) the scenarios each
#                   revision requires, once at the 2025-11-25 wire and once
#                   at the stateless 2026-07-28 wire, against each endpoint:
#                     /mcp/conformance  the fixtures the suite's scenarios
#                                       call (server/conformancefixtures):
#                                       server/conformance-baseline-fixtures.yml
#                                       lists only what no server can pass;
#                     /mcp, /mcp/rides  Trident and Relay, which serve only
#                                       their own tools: both
#                                       server/conformance-baseline-0.2.yml.
#                   The runs of the tasks extension are reported beside the
#                   scored ones ("Not scored for ...").
#
# Exits non-zero when any run fails (an unexpected failure, or a baseline
# entry that now passes).
#
#   server/conformance.sh                            # every run
#   SUITES="0.2" server/conformance.sh               # one release line (0.1 or 0.2)
#   TARGETS="fixtures" server/conformance.sh         # the runs of these endpoints (fixtures, trident, rides)
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
exec scripts/with-server.sh CONFORMANCE_FIXTURES=true -- bash -c '
  set -uo pipefail
  node=node_modules/.bin/node
  v01=node_modules/@modelcontextprotocol/conformance/dist/index.js
  v02=node_modules/mcp-conformance-0-2/dist/index.js
  echo "conformance: server at $BASE_URL"
  status=0
  run() { # label, suite, url, baseline, extra args...
    local label=$1 suite=$2 url=$3 baseline=$4; shift 4
    echo "=== conformance $label against $url ==="
    if [[ -n "${SCENARIOS:-}" ]]; then
      local listed
      listed=$("$node" "$suite" list --server "$@" 2>/dev/null || true)
      for s in $SCENARIOS; do
        grep -q -- "- $s\b" <<<"$listed" || continue
        # --requirements fixes the scenario set, so one scenario runs at
        # that revision through --spec-version.
        "$node" "$suite" server --url "$url" --scenario "$s" --expected-failures "$baseline" \
          $(sed "s/--requirements/--spec-version/" <<<"$*") || status=1
      done
      return
    fi
    "$node" "$suite" server --url "$url" --expected-failures "$baseline" "$@" || status=1
  }
  targets=" ${TARGETS:-fixtures trident rides} "
  if [[ " ${SUITES:-0.1 0.2} " == *" 0.1 "* ]]; then
    [[ $targets == *" fixtures "* ]] && run "0.1.16 (fixtures)" "$v01" "$BASE_URL/mcp/conformance" server/conformance-baseline-fixtures.yml
    [[ $targets == *" trident "* ]] && run "0.1.16 (trident)" "$v01" "$BASE_URL/mcp" server/conformance-baseline.yml
  fi
  if [[ " ${SUITES:-0.1 0.2} " == *" 0.2 "* ]]; then
    for target in $targets; do
      case $target in
        fixtures) url=$BASE_URL/mcp/conformance baseline=server/conformance-baseline-fixtures.yml ;;
        trident)  url=$BASE_URL/mcp             baseline=server/conformance-baseline-0.2.yml ;;
        rides)    url=$BASE_URL/mcp/rides       baseline=server/conformance-baseline-0.2.yml ;;
        *) echo "conformance: unknown target $target (fixtures, trident or rides)" >&2; status=1; continue ;;
      esac
      for wire in 2025-11-25 2026-07-28; do
        run "0.2 at $wire ($target)" "$v02" "$url" "$baseline" --requirements "$wire"
      done
    done
  fi
  exit "$status"
'
