#!/usr/bin/env bash
# Run the conformance suite against the independent TypeScript-SDK server
# (server.mjs beside this script): the proof that the suite judges a server
# by the contract, not by the Go server's incidental choices.
#
#   e2e/ts/trident-server/run-conformance.sh [-- SUITE ARGS]
#
# It starts the server on a free loopback port with a frozen fare clock (the
# samples are daytime quotes without departAt), runs conformance/run-local.sh
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
# The Trident contract files (tools.json, schemas/, tariff/): contracts/trident
# once the contracts are split per endpoint, contracts/ before.
contracts="$PWD/contracts"
[ -f contracts/trident/tools.json ] && contracts="$PWD/contracts/trident"
clock="${FARE_CLOCK:-2025-06-18T09:00:00Z}"

port=""
for _ in $(seq 1 50); do
	p=$((20000 + RANDOM % 40000))
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port="$p"; break; fi
done
[ -n "$port" ] || { echo "run-conformance: no free port" >&2; exit 1; }

log="$(mktemp)"
ADDR="127.0.0.1:$port" FARE_CLOCK="$clock" TRIDENT_CONTRACTS="$contracts" \
	"$node" e2e/ts/trident-server/server.mjs >"$log" 2>&1 &
pid=$!
cleanup() {
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	rm -f "$log"
}
trap cleanup EXIT INT TERM

for _ in $(seq 1 200); do
	(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "run-conformance: the TypeScript server exited:" >&2
		cat "$log" >&2
		exit 1
	fi
	sleep 0.05
done

[ "${1:-}" = "--" ] && shift
CONFORMANCE_MODE="${CONFORMANCE_MODE:-public}" \
	CONFORMANCE_STRICT_MESSAGES="${CONFORMANCE_STRICT_MESSAGES:-false}" \
	CONFORMANCE_FARE_CLOCK="${CONFORMANCE_FARE_CLOCK:-$clock}" \
	conformance/run-local.sh --endpoint "http://127.0.0.1:$port/mcp" -- "$@" || {
	status=$?
	echo "run-conformance: the suite failed against the TypeScript server; its log:" >&2
	cat "$log" >&2
	exit "$status"
}
