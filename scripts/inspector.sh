#!/usr/bin/env bash
# Runs MCP Inspector 2.12's CLI against freshly built trident-mcp servers on
# free loopback ports, in both of its protocol eras (legacy: the handshake,
# at 2025-11-25 and, against a server restricted to it, 2025-06-18; modern:
# 2026-07-28, server/discover and per-request _meta), listing and calling
# the tools (e2e/ts/inspector-cli.mjs). Exits non-zero when a run fails.
#
# Needs node_modules (make npm): the Inspector needs Node 22.19 or later,
# which node_modules/.bin/node provides.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ! -x node_modules/.bin/node || ! -e node_modules/@modelcontextprotocol/inspector/package.json ]]; then
  echo "inspector: node_modules missing: run 'make npm' first" >&2
  exit 1
fi
# The sample's fare is the day tariff: pin the clock that picks the band.
# First a server with every revision: legacy negotiates 2025-11-25, modern
# 2026-07-28. Then one that serves only the specification's revision and
# older (MCP_PROTOCOL_VERSIONS): legacy negotiates 2025-06-18 and sees
# invalid arguments as -32602.
# shellcheck disable=SC2016 # expanded by the inner shell, once the server is up
scripts/with-server.sh FARE_CLOCK=2025-06-18T09:00:00Z -- \
  bash -c 'node_modules/.bin/node e2e/ts/inspector-cli.mjs "$MCP_ENDPOINT" legacy=2025-11-25 modern=2026-07-28'
# shellcheck disable=SC2016
exec scripts/with-server.sh FARE_CLOCK=2025-06-18T09:00:00Z MCP_PROTOCOL_VERSIONS=2025-06-18,2025-03-26,2024-11-05 -- \
  bash -c 'node_modules/.bin/node e2e/ts/inspector-cli.mjs "$MCP_ENDPOINT" legacy=2025-06-18'
