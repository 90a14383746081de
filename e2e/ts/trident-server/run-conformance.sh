#!/usr/bin/env bash
# Run the conformance suite against the independent TypeScript-SDK server
# (server.mjs beside this script): the proof that the suite judges a server
# by the contract, not by the Go server's incidental choices.
#
#   e2e/ts/trident-server/run-conformance.sh [-- SUITE ARGS]
#
# It starts the server on a free loopback port (scripts/lib/launch.sh, as
# every harness does) with a frozen fare clock (the samples are daytime
# quotes without departAt), runs conformance/run-local.sh
# --endpoint against it in public mode with --strict-messages=false (the
# server words its errors its own way), and stops the server. JUNIT=file.xml
# writes a JUnit report. Needs the pinned Node tooling (`make npm`).
set -euo pipefail
cd "$(dirname "$0")/../../.."

node=node_modules/.bin/node
if [ ! -x "$node" ]; then
	echo "run-conformance: $node is missing: run 'make npm' first" >&2
	exit 1
fi
# shellcheck source=../../../scripts/lib/launch.sh
source scripts/lib/launch.sh
clock="${FARE_CLOCK:-2025-06-18T09:00:00Z}"
addr="127.0.0.1:$(free_port)"
log="$launch_dir/ts-server.log"
launch_bg "$log" env ADDR="$addr" FARE_CLOCK="$clock" TRIDENT_CONTRACTS="$PWD/contracts/trident" \
	"$node" e2e/ts/trident-server/server.mjs
# The TypeScript server has no /readyz: its catalogue answers once it listens.
wait_ready "the TypeScript server" "http://$addr/.mcp/list-tools" "$log"

[ "${1:-}" = "--" ] && shift
CONFORMANCE_MODE="${CONFORMANCE_MODE:-public}" \
	CONFORMANCE_STRICT_MESSAGES="${CONFORMANCE_STRICT_MESSAGES:-false}" \
	CONFORMANCE_FARE_CLOCK="${CONFORMANCE_FARE_CLOCK:-$clock}" \
	conformance/run-local.sh --endpoint "http://$addr/mcp" -- "$@" || {
	status=$?
	echo "run-conformance: the suite failed against the TypeScript server; its log:" >&2
	cat "$log" >&2
	exit "$status"
}
