#!/usr/bin/env bash
# Runs the generated collections against local servers in both modes, as a
# user would: newman runs the whole Postman collection, no --folder, once
# against a public server and once against a server in OAuth mode (beside
# the dev issuer, with an access token it signed for that server), and every
# folder must pass both times. The public run also parses the Insomnia
# export and sends its requests (tools/js/check-collections.mjs).
#
#   scripts/test-collections.sh            both modes
#   scripts/test-collections.sh public     one mode (public or oauth)
#
# Needs node_modules (make npm): newman and the pinned Node 22.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/launch.sh

node=node_modules/.bin/node
[ -x "$node" ] || { echo "test-collections: $node is missing: run 'make npm' first" >&2; exit 1; }
modes=("${@:-public}")
[ $# -gt 0 ] || modes=(public oauth)

launch_build trident-mcp ./server/cmd/trident-mcp
launch_build dev-issuer ./tools/dev-issuer

# newman waits for ever by default; these bound a request and the whole run.
newman() {
	"$node" node_modules/.bin/newman run collections/trident.postman_collection.json \
		--timeout-request 10000 --timeout 120000 --reporters cli --color off "$@"
}

run_public() {
	local addr="127.0.0.1:$(free_port)"
	start_server "$addr" || return
	# One value, as an API tester sets it: the endpoints derive from baseUrl.
	echo "test-collections: [public] the whole Postman collection against baseUrl=http://$addr"
	newman --env-var "baseUrl=http://$addr" || return
	BASE_URL="http://$addr" "$node" tools/js/check-collections.mjs
}

run_oauth() {
	local addr iaddr issuer token rides_token log
	addr="127.0.0.1:$(free_port)"
	iaddr="127.0.0.1:$(free_port)"
	log="$launch_dir/dev-issuer.log"
	launch_bg "$log" "$launch_dir/dev-issuer" --addr "$iaddr" --base-url "http://$iaddr" \
		--resource "http://$addr/mcp" --resource "http://$addr/mcp/rides" \
		--service-client relay-collections:relay-collections-secret --dev-admin
	issuer="http://$iaddr/auth/v1"
	wait_ready "the dev issuer on $iaddr" "$issuer/health" "$log" || return
	# Relay calls Trident with a client-credentials token of its own.
	start_server "$addr" MCP_REQUIRE_OAUTH=true OAUTH_ISSUER="$issuer" \
		RELAY_TRIDENT_CLIENT_ID=relay-collections RELAY_TRIDENT_CLIENT_SECRET=relay-collections-secret || return
	# A token for this server's resource, signed by the issuer's key: what a
	# user pastes into accessToken after the OAuth flow.
	token="$(curl -fsS -X POST "http://$iaddr/auth/v1/admin/mint-token" \
		--data-urlencode "resource=http://$addr/mcp" --data-urlencode "ttl=10m" |
		sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p')"
	[ -n "$token" ] || { echo "test-collections: the dev issuer minted no token" >&2; cat "$log" >&2; return 1; }
	# And one for Relay's resource with its three scopes, for the Relay folder.
	rides_token="$(curl -fsS -X POST "http://$iaddr/auth/v1/admin/mint-token" \
		--data-urlencode "resource=http://$addr/mcp/rides" --data-urlencode "ttl=10m" \
		--data-urlencode "scope=rides:read rides:handoff journeys:write" |
		sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p')"
	[ -n "$rides_token" ] || { echo "test-collections: the dev issuer minted no Relay token" >&2; cat "$log" >&2; return 1; }
	echo "test-collections: [oauth] the whole Postman collection against http://$addr/mcp and /mcp/rides, with tokens"
	newman --env-var "baseUrl=http://$addr" --env-var "accessToken=$token" \
		--env-var "ridesAccessToken=$rides_token"
}

failed=()
for mode in "${modes[@]}"; do
	case "$mode" in
	public) run_public || failed+=(public) ;;
	oauth) run_oauth || failed+=(oauth) ;;
	*) echo "test-collections: unknown mode $mode (want public or oauth)" >&2; exit 2 ;;
	esac
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "test-collections: FAILED: ${failed[*]}" >&2
	for f in "$launch_dir"/*.log; do echo "--- $f ---" >&2; tail -n 30 "$f" >&2; done
	exit 1
fi
echo "test-collections: passed: ${modes[*]}"
