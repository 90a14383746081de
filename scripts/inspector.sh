#!/usr/bin/env bash
# Runs MCP Inspector 2.12's CLI against a freshly built trident-mcp on a
# free loopback port, in both of its protocol eras (legacy: the 2025-11-25
# handshake; modern: 2026-07-28, server/discover and per-request _meta),
# listing and calling the tools (e2e/ts/inspector-cli.mjs). Exits with its
# status.
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
# shellcheck disable=SC2016 # expanded by the inner shell, once the server is up
exec scripts/with-server.sh FARE_CLOCK=2025-06-18T09:00:00Z -- \
  bash -c 'node_modules/.bin/node e2e/ts/inspector-cli.mjs "$MCP_ENDPOINT"'
