#!/usr/bin/env bash
# Run the conformance suite.
#
#   conformance/run-local.sh                      build the server and the dev OAuth issuer,
#                                                 run the whole suite twice on loopback, and
#                                                 stop everything:
#                                                   public  the server in public mode (plus a
#                                                           second instance whose router is
#                                                           down, for ROUTING_UNAVAILABLE, and
#                                                           a third whose Uber is a fake the
#                                                           suite serves, for Relay's cool-down)
#                                                   oauth   tools/dev-issuer on a free port and
#                                                           the server with MCP_REQUIRE_OAUTH=true
#                                                           against it (plus a router-down
#                                                           instance); the suite obtains its own
#                                                           token (DCR, PKCE, auto-approved
#                                                           consent) and is given an expired one
#                                                           minted by the issuer, and tokens for
#                                                           Relay's resource with and without its
#                                                           scopes; Relay calls Trident with a
#                                                           client-credentials token of its own
#                                                 Exits non-zero if either pass fails.
#   conformance/run-local.sh --pass public|oauth  run one pass only
#   conformance/run-local.sh --endpoint URL       run the suite once against a running server
#                                                 (OAuth options via CONFORMANCE_* or -- ARGS)
#   conformance/run-local.sh [...] -- ARGS        pass ARGS to the suite binary, e.g.
#                                                 -- --ginkgo.label-filter=samples
#
# Environment:
#   JUNIT=path.xml        also write JUnit XML: path.xml with --endpoint, otherwise
#                         path-public.xml and path-oauth.xml, one per pass
#   SERVER_PKG=./pkg      the server package to build (default ./server/cmd/trident-mcp)
#   OAUTH_ISSUER=URL      oauth pass: use this issuer instead of starting the dev issuer
#                         (it must honour X-Dev-Auto-Approve, or pass CONFORMANCE_TOKEN;
#                         the expired-token case needs CONFORMANCE_EXPIRED_TOKEN)
#   FARE_CLOCK            the servers' fare clock (default 2025-06-18T09:00:00Z: the
#                         samples are daytime quotes without departAt)
#   CONFORMANCE_*         every suite option (see conformance/README.md); they win over
#                         what this script sets
#
# How the expired token is made: the dev issuer runs with --dev-admin, which
# serves POST /auth/v1/admin/mint-token (tools/dev-issuer/mint.go); ttl=-1h
# signs a token with the issuer's real key whose exp passed an hour ago.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/lib/launch.sh

endpoint=""
passes="public oauth"
suite_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--endpoint) endpoint="$2"; shift 2 ;;
	--endpoint=*) endpoint="${1#--endpoint=}"; shift ;;
	--pass) passes="$2"; shift 2 ;;
	--pass=*) passes="${1#--pass=}"; shift ;;
	--) shift; suite_args+=("$@"); break ;;
	*) suite_args+=("$1"); shift ;;
	esac
done
for p in $passes; do
	case "$p" in
	public | oauth) ;;
	*) echo "run-local: --pass $p: want public or oauth" >&2; exit 2 ;;
	esac
done

# run_suite NAME JUNIT ENDPOINT [ENV...]: run the suite binary; ENV are
# defaults that the caller's CONFORMANCE_* variables override.
run_suite() {
	local name="$1" junit="$2" ep="$3"; shift 3
	local defaults=() kv var
	for kv in "$@"; do
		# Keep a default only when the caller did not set that variable.
		var="${kv%%=*}"
		[ -n "${!var:-}" ] || defaults+=("$kv")
	done
	local args=(-test.run '^TestConformance$' --endpoint="$ep")
	if [ -n "$junit" ]; then
		args+=(--ginkgo.junit-report="$junit")
	fi
	echo "run-local: [$name] running the suite against $ep" >&2
	env "${defaults[@]}" "$launch_dir/conformance.test" "${args[@]}" "${suite_args[@]}"
}

junit_for() {
	[ -n "${JUNIT:-}" ] || return 0
	echo "${JUNIT%.xml}-$1.xml"
}

echo "run-local: building the suite" >&2
go test -c -o "$launch_dir/conformance.test" ./conformance

if [ -n "$endpoint" ]; then
	status=0
	run_suite endpoint "${JUNIT:-}" "$endpoint" || status=$?
	exit "$status"
fi

echo "run-local: building the server and the dev issuer" >&2
launch_build trident-mcp "${SERVER_PKG:-./server/cmd/trident-mcp}"
launch_build dev-issuer ./tools/dev-issuer

# What the servers started here refuse with their default configuration
# (ALLOWED_ORIGINS is PUBLIC_BASE_URL and loopback, MAX_BODY_BYTES 1 MiB),
# so the FORBIDDEN_ORIGIN and PAYLOAD_TOO_LARGE rows are provoked, not skipped.
# The fare clock they are frozen at lets the fare oracle judge the band of
# calls without departAt too.
server_defaults=(CONFORMANCE_FORBIDDEN_ORIGIN=https://attacker.example CONFORMANCE_MAX_BODY_BYTES=1048576
	CONFORMANCE_FARE_CLOCK="${FARE_CLOCK:-2025-06-18T09:00:00Z}")

# pass_public: the server as `make run` starts it.
pass_public() {
	local addr down uber fake_uber db
	addr="127.0.0.1:$(free_port)"
	# Its store where the suite can read the retained signals; options live
	# 5 s here, so the expiry spec can wait one out and see it refused
	# (against the default five minutes it skips).
	db="sqlite:$launch_dir/relay-public.db"
	start_server "$addr" RELAY_DATABASE_URL="$db" RELAY_OPTION_TTL=5s || return
	# A second instance whose router is unreachable, for ROUTING_UNAVAILABLE.
	down="127.0.0.1:$(free_port)"
	start_server "$down" ROUTER=osrm OSRM_URL="http://127.0.0.1:$(free_port)" || return
	# A third whose Uber source calls a fake the suite serves at fake_uber
	# (internal/fakeproviders), for the cool-down after a 429.
	uber="127.0.0.1:$(free_port)"
	fake_uber="127.0.0.1:$(free_port)"
	start_server "$uber" UBER_API_URL="http://$fake_uber" UBER_ACCESS_TOKEN=conformance-uber || return
	run_suite public "$(junit_for public)" "http://$addr/mcp" \
		CONFORMANCE_MODE=public CONFORMANCE_ROUTING_DOWN_ENDPOINT="http://$down/mcp" \
		CONFORMANCE_RIDES_UBER_ENDPOINT="http://$uber/mcp/rides" CONFORMANCE_FAKE_UBER_ADDR="$fake_uber" \
		CONFORMANCE_FAKE_UBER_TOKEN=conformance-uber CONFORMANCE_RIDES_DATABASE_URL="$db" "${server_defaults[@]}"
}

# pass_oauth: the dev issuer, and the server in OAuth mode against it.
pass_oauth() {
	local addr down resource issuer expired="" rides_token="" rides_bare=""
	# Relay's own client for calling Trident (client credentials).
	local relay_client="relay-conformance:relay-conformance-secret"
	addr="127.0.0.1:$(free_port)"
	resource="http://$addr/mcp"
	if [ -n "${OAUTH_ISSUER:-}" ]; then
		issuer="$OAUTH_ISSUER"
	else
		local iaddr log
		iaddr="127.0.0.1:$(free_port)"
		log="$launch_dir/dev-issuer.log"
		launch_bg "$log" "$launch_dir/dev-issuer" --addr "$iaddr" --base-url "http://$iaddr" --resource "$resource" \
			--resource "$resource/rides" --service-client "$relay_client" --dev-auto-approve --dev-admin
		issuer="http://$iaddr/auth/v1"
		wait_ready "the dev issuer on $iaddr" "$issuer/health" "$log" || return
		# An access token signed by the issuer's real key, expired an hour ago.
		expired="$(curl -fsS -X POST "http://$iaddr/auth/v1/admin/mint-token" \
			--data-urlencode "resource=$resource" --data-urlencode "ttl=-1h" |
			sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p')"
		if [ -z "$expired" ]; then
			echo "run-local: the dev issuer minted no expired token" >&2
			cat "$log" >&2
			return 1
		fi
		# Tokens for Relay's resource: one with its three scopes, for the
		# rides specs, and one with none, for INSUFFICIENT_SCOPE.
		rides_token="$(curl -fsS -X POST "http://$iaddr/auth/v1/admin/mint-token" \
			--data-urlencode "resource=$resource/rides" --data-urlencode "scope=rides:read rides:handoff journeys:write" |
			sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p')"
		rides_bare="$(curl -fsS -X POST "http://$iaddr/auth/v1/admin/mint-token" \
			--data-urlencode "resource=$resource/rides" | sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p')"
	fi
	local oauth_env=(MCP_REQUIRE_OAUTH=true OAUTH_ISSUER="$issuer"
		RELAY_TRIDENT_CLIENT_ID="${relay_client%%:*}" RELAY_TRIDENT_CLIENT_SECRET="${relay_client#*:}")
	start_server "$addr" "${oauth_env[@]}" || return
	# A replica with its router down. It shares the resource URL, as replicas
	# behind one address do, so the suite's token is good there too.
	down="127.0.0.1:$(free_port)"
	start_server "$down" "${oauth_env[@]}" MCP_RESOURCE_URL="$resource" \
		ROUTER=osrm OSRM_URL="http://127.0.0.1:$(free_port)" || return
	run_suite oauth "$(junit_for oauth)" "$resource" \
		CONFORMANCE_MODE=oauth CONFORMANCE_ISSUER="$issuer" CONFORMANCE_AUTO_APPROVE=dev@tridenttaxis.test \
		CONFORMANCE_EXPIRED_TOKEN="$expired" CONFORMANCE_RIDES_TOKEN="$rides_token" CONFORMANCE_RIDES_BARE_TOKEN="$rides_bare" \
		CONFORMANCE_ROUTING_DOWN_ENDPOINT="http://$down/mcp" "${server_defaults[@]}"
}

# Each pass runs in full even when the one before failed. errexit does not
# apply inside a function called from `if`, so the passes return on errors
# explicitly.
failed=()
for p in $passes; do
	if ! "pass_$p"; then
		failed+=("$p")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "run-local: FAILED: ${failed[*]} (passes run: $passes)" >&2
	exit 1
fi
echo "run-local: passed: $passes" >&2
