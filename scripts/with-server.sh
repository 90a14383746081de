#!/usr/bin/env bash
# Builds the server, starts it on a free loopback port with the embedded
# defaults, waits until /healthz answers, runs the given command with
# MCP_ENDPOINT and BASE_URL set, then stops the server and exits with the
# command's status.
#
# Usage: scripts/with-server.sh [ENV=VALUE ...] -- COMMAND [ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."

# Every curl here talks to a process this script started; a bound on each
# keeps a wedged server from hanging the run instead of failing it.
curl() { command curl --max-time 15 "$@"; }

server_env=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do server_env+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "usage: $0 [ENV=VALUE ...] -- COMMAND [ARGS...]" >&2; exit 2; }

work=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

go build -o "$work/trident-mcp" ./server/cmd/trident-mcp
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null ||
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
base="http://127.0.0.1:$port"
env ADDR="127.0.0.1:$port" PUBLIC_BASE_URL="$base" FARE_CLOCK="${FARE_CLOCK:-2025-06-18T09:00:00Z}" "${server_env[@]}" "$work/trident-mcp" >"$work/server.log" 2>&1 &
pid=$!

for _ in $(seq 1 100); do
  if curl -fsS "$base/healthz" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then echo "server exited:" >&2; cat "$work/server.log" >&2; exit 1; fi
  sleep 0.1
done
curl -fsS "$base/healthz" >/dev/null || { echo "server did not become healthy:" >&2; cat "$work/server.log" >&2; exit 1; }

status=0
MCP_ENDPOINT="$base/mcp" BASE_URL="$base" "$@" || status=$?
if [ $status -ne 0 ]; then echo "--- server log ---" >&2; tail -n 50 "$work/server.log" >&2; fi
exit $status
