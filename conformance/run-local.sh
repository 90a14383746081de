#!/usr/bin/env bash
# Run the conformance suite.
#
#   conformance/run-local.sh                      build the server, start it on a free
#                                                 loopback port (plus a second instance
#                                                 whose router is down, for
#                                                 ROUTING_UNAVAILABLE), run the whole
#                                                 suite, stop both
#   conformance/run-local.sh --endpoint URL       run the suite against a running server
#   conformance/run-local.sh [...] -- ARGS        pass ARGS to the suite binary, e.g.
#                                                 -- --ginkgo.label-filter=samples
#
# Environment:
#   JUNIT=path.xml        also write a JUnit XML report
#   SERVER_PKG=./pkg      local mode: the server package to build (default
#                         ./server/cmd/trident-mcp)
#   OAUTH_ISSUER=URL      local mode: start the server with MCP_REQUIRE_OAUTH=true and
#                         this issuer; the suite obtains a token from it
#                         (CONFORMANCE_ISSUER defaults to it; the dev issuer must
#                         honour X-Dev-Auto-Approve)
#   CONFORMANCE_*         every suite option (see conformance/README.md)
#
# Exits with the suite's status.
set -euo pipefail
cd "$(dirname "$0")/.."

endpoint=""
suite_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--endpoint) endpoint="$2"; shift 2 ;;
	--endpoint=*) endpoint="${1#--endpoint=}"; shift ;;
	--) shift; suite_args+=("$@"); break ;;
	*) suite_args+=("$1"); shift ;;
	esac
done

tmp="$(mktemp -d)"
pids=()
cleanup() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# free_port prints a loopback port nothing listens on.
free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	echo "run-local: no free port found" >&2
	return 1
}

# start ADDR [ENV...]: start the server on ADDR and wait for /healthz.
start() {
	local addr="$1"; shift
	env ADDR="$addr" PUBLIC_BASE_URL="http://$addr" FARE_CLOCK="${FARE_CLOCK:-2025-06-18T09:00:00Z}" "$@" "$tmp/trident-mcp" >"$tmp/server-$addr.log" 2>&1 &
	pids+=("$!")
	for _ in $(seq 1 200); do
		if curl -fsS "http://$addr/healthz" >/dev/null 2>&1; then
			return 0
		fi
		if ! kill -0 "${pids[-1]}" 2>/dev/null; then
			echo "run-local: the server on $addr exited:" >&2
			cat "$tmp/server-$addr.log" >&2
			return 1
		fi
		sleep 0.05
	done
	echo "run-local: the server on $addr never answered /healthz:" >&2
	cat "$tmp/server-$addr.log" >&2
	return 1
}

echo "run-local: building the suite" >&2
go test -c -o "$tmp/conformance.test" ./conformance

if [ -z "$endpoint" ]; then
	echo "run-local: building and starting the server" >&2
	go build -o "$tmp/trident-mcp" "${SERVER_PKG:-./server/cmd/trident-mcp}"
	addr="127.0.0.1:$(free_port)"
	server_env=()
	if [ -n "${OAUTH_ISSUER:-}" ]; then
		server_env+=(MCP_REQUIRE_OAUTH=true OAUTH_ISSUER="$OAUTH_ISSUER")
		export CONFORMANCE_ISSUER="${CONFORMANCE_ISSUER:-$OAUTH_ISSUER}"
	fi
	start "$addr" "${server_env[@]}"
	endpoint="http://$addr/mcp"
	# A second instance whose router is unreachable, for ROUTING_UNAVAILABLE.
	down="127.0.0.1:$(free_port)"
	start "$down" "${server_env[@]}" ROUTER=osrm OSRM_URL="http://127.0.0.1:$(free_port)"
	export CONFORMANCE_ROUTING_DOWN_ENDPOINT="${CONFORMANCE_ROUTING_DOWN_ENDPOINT:-http://$down/mcp}"
fi

args=(-test.run '^TestConformance$' --endpoint="$endpoint")
if [ -n "${JUNIT:-}" ]; then
	args+=(--ginkgo.junit-report="$JUNIT")
fi
echo "run-local: running the suite against $endpoint" >&2
status=0
"$tmp/conformance.test" "${args[@]}" "${suite_args[@]}" || status=$?
exit "$status"
