#!/usr/bin/env bash
# Builds the server, starts it on a free loopback port with the embedded
# defaults, waits until /healthz answers, runs the given command with
# MCP_ENDPOINT and BASE_URL set, then stops the server and exits with the
# command's status.
#
# Usage: scripts/with-server.sh [ENV=VALUE ...] -- COMMAND [ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/launch.sh

server_env=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do server_env+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: $0 [ENV=VALUE ...] -- COMMAND [ARGS...]" >&2; exit 2; }

launch_build trident-mcp ./server/cmd/trident-mcp
addr="127.0.0.1:$(free_port)"
# /healthz, not /readyz: callers may start an OAuth-mode server whose issuer
# is deliberately unreachable, to see its 401s.
LAUNCH_READY_PATH=/healthz start_server "$addr" "${server_env[@]}"
base="http://$addr"

status=0
MCP_ENDPOINT="$base/mcp" BASE_URL="$base" "$@" || status=$?
if [ $status -ne 0 ]; then echo "--- server log ---" >&2; tail -n 50 "$launch_dir/server-$addr.log" >&2; fi
exit $status
