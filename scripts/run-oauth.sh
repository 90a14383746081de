#!/usr/bin/env bash
# Runs the MCP server in OAuth mode beside the dev OAuth issuer, for
# development (`make run-oauth`); Ctrl-C stops both.
#
#   scripts/run-oauth.sh           serve until Ctrl-C
#   scripts/run-oauth.sh --check   start both on free ports, walk the OAuth
#                                  flow of docs/oauth.md with curl, stop;
#                                  exit status says whether it worked
#
# Environment (run mode defaults; --check picks free loopback ports):
#   ADDR              127.0.0.1:8080   the MCP server
#   ISSUER_ADDR       127.0.0.1:9999   the dev issuer (issuer http://$ISSUER_ADDR/auth/v1)
#   PUBLIC_BASE_URL   http://$ADDR
#   DEV_ISSUER_FLAGS  --dev-auto-approve   extra dev-issuer flags (see tools/dev-issuer)
#
# The issuer signs in dev@tridenttaxis.test / dev-password on its HTML pages.
# --dev-auto-approve (DEV ONLY) also lets scripts skip the pages by sending
# X-Dev-Auto-Approve: <email> on /oauth/authorize; both listen on loopback
# only. Needs go and curl; --check also needs jq and openssl.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/lib/launch.sh

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }

mode=run
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  -h | --help) usage; exit 0 ;;
  *) usage >&2; exit 2 ;;
esac

need() {
  command -v "$1" >/dev/null 2>&1 || { echo "run-oauth: '$1' is required (apt-get install $1)" >&2; exit 1; }
}
need go
need curl
if [ "$mode" = check ]; then need jq; need openssl; fi

if [ "$mode" = check ]; then
  ADDR=${ADDR:-127.0.0.1:$(free_port)}
  ISSUER_ADDR=${ISSUER_ADDR:-127.0.0.1:$(free_port)}
else
  ADDR=${ADDR:-127.0.0.1:8080}
  ISSUER_ADDR=${ISSUER_ADDR:-127.0.0.1:9999}
fi
PUBLIC_BASE_URL=${PUBLIC_BASE_URL:-http://$ADDR}
ISSUER="http://$ISSUER_ADDR/auth/v1"
MCP="$PUBLIC_BASE_URL/mcp"
DEV_ISSUER_FLAGS=${DEV_ISSUER_FLAGS---dev-auto-approve}
# --check needs the header shortcut whatever the flags say.
if [ "$mode" = check ]; then DEV_ISSUER_FLAGS="$DEV_ISSUER_FLAGS --dev-auto-approve"; fi

trap 'exit 130' INT
trap 'exit 143' TERM

launch_build dev-issuer ./tools/dev-issuer
launch_build trident-mcp ./server/cmd/trident-mcp

# In --check mode the logs go to files, shown only when something fails.
issuer_log=/dev/stderr server_log=/dev/stderr
if [ "$mode" = check ]; then issuer_log=$launch_dir/issuer.log server_log=$launch_dir/server.log; fi

# shellcheck disable=SC2086 # DEV_ISSUER_FLAGS is a list of flags
# Relay (/mcp/rides) is a resource of its own, and calls Trident with a
# client-credentials token of its own: the dev issuer registers that client.
RELAY_TRIDENT_CLIENT_ID=${RELAY_TRIDENT_CLIENT_ID:-relay-dev}
RELAY_TRIDENT_CLIENT_SECRET=${RELAY_TRIDENT_CLIENT_SECRET:-relay-dev-secret}
launch_bg "$issuer_log" "$launch_dir/dev-issuer" --addr "$ISSUER_ADDR" --resource "$MCP" --resource "$MCP/rides" \
  --service-client "$RELAY_TRIDENT_CLIENT_ID:$RELAY_TRIDENT_CLIENT_SECRET" $DEV_ISSUER_FLAGS
launch_bg "$server_log" env ADDR="$ADDR" PUBLIC_BASE_URL="$PUBLIC_BASE_URL" MCP_REQUIRE_OAUTH=true OAUTH_ISSUER="$ISSUER" SHUTDOWN_DELAY=0 \
  RELAY_TRIDENT_CLIENT_ID="$RELAY_TRIDENT_CLIENT_ID" RELAY_TRIDENT_CLIENT_SECRET="$RELAY_TRIDENT_CLIENT_SECRET" \
  "$launch_dir/trident-mcp"

show_logs() {
  if [ "$mode" = check ]; then
    echo "--- dev-issuer log" >&2; cat "$launch_dir/issuer.log" >&2 || true
    echo "--- trident-mcp log" >&2; cat "$launch_dir/server.log" >&2 || true
  fi
}

# Ready means the server holds the issuer's signing keys (/readyz 200).
deadline=$((SECONDS + 30))
until curl -fsS -o /dev/null "$PUBLIC_BASE_URL/readyz" 2>/dev/null; do
  for p in "${launch_pids[@]}"; do
    if ! kill -0 "$p" 2>/dev/null; then
      echo "run-oauth: a process exited during start-up (port taken?)" >&2
      show_logs
      exit 1
    fi
  done
  if [ $SECONDS -ge $deadline ]; then
    echo "run-oauth: $PUBLIC_BASE_URL/readyz not ready after 30 s: $(curl -sS "$PUBLIC_BASE_URL/readyz" 2>&1 || true)" >&2
    show_logs
    exit 1
  fi
  sleep 0.2
done

if [ "$mode" = run ]; then
  cat <<EOF
run-oauth: ready
  MCP endpoint (OAuth mode)  $MCP
  issuer                     $ISSUER
  dev user                   dev@tridenttaxis.test / dev-password
  probe                      curl -sS $PUBLIC_BASE_URL/.well-known/oauth-protected-resource
  walkthrough                docs/oauth.md ("The flow with curl")
EOF
  wait -n "${launch_pids[@]}"
  exit $?
fi

# --check: the walkthrough of docs/oauth.md, step by step. Keep the two in step.
fail() { echo "run-oauth --check: FAIL: $*" >&2; show_logs; exit 1; }
ok() { echo "run-oauth --check: ok: $*"; }

CALL='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}}}'
mcp_call() { # mcp_call <headers-file> [curl args...]: POST $CALL to /mcp, body on stdout
  local h=$1
  shift
  curl -sS -D "$h" -X POST "$MCP" -H "Content-Type: application/json" \
    -H "Accept: application/json, text/event-stream" "$@" -d "$CALL"
}

# 0. An anonymous call gets the seed's 401.
body=$(mcp_call "$launch_dir/h0")
status=$(awk 'NR==1{print $2}' "$launch_dir/h0")
challenge=$(tr -d '\r' <"$launch_dir/h0" | sed -n 's/^[Ww][Ww][Ww]-[Aa]uthenticate: //p')
want_challenge="Bearer realm=\"mcp\", error=\"invalid_token\", error_description=\"Missing or invalid access token\", resource_metadata=\"$PUBLIC_BASE_URL/.well-known/oauth-protected-resource\""
[ "$status" = 401 ] || fail "anonymous call: HTTP $status, want 401"
[ "$challenge" = "$want_challenge" ] || fail "WWW-Authenticate: $challenge"
jq -e '.jsonrpc == "2.0" and .id == null and .error.code == -32001' <<<"$body" >/dev/null || fail "401 body: $body"
ok "anonymous call refused with the seed's 401"

# 1. Discover the authorization server from the challenge.
meta_url=$(sed -n 's/.*resource_metadata="\([^"]*\)".*/\1/p' <<<"$challenge")
prm=$(curl -fsS "$meta_url")
issuer=$(jq -r '.authorization_servers[0]' <<<"$prm")
[ "$issuer" = "$ISSUER" ] || fail "authorization_servers[0] = $issuer, want $ISSUER"
[ "$(jq -r .resource <<<"$prm")" = "$MCP" ] || fail "resource: $prm"
ok "resource metadata names the issuer $issuer"

# 2. The issuer's metadata.
asm=$(curl -fsS "$issuer/.well-known/oauth-authorization-server")
jq -e '.code_challenge_methods_supported | index("S256")' <<<"$asm" >/dev/null || fail "no S256: $asm"
authorize=$(jq -r .authorization_endpoint <<<"$asm")
token=$(jq -r .token_endpoint <<<"$asm")

# 3. Register a public client.
redirect_uri=http://127.0.0.1:8976/callback
client_id=$(curl -fsS -X POST "$issuer/oauth/register" -H "Content-Type: application/json" \
  -d '{"client_name":"run-oauth check","redirect_uris":["'"$redirect_uri"'"],"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none"}' |
  jq -r .client_id)
[ -n "$client_id" ] && [ "$client_id" != null ] || fail "registration returned no client_id"
ok "registered client $client_id"

# 4. Authorize with PKCE S256, state and resource (dev auto-approve in
#    place of the browser's sign-in and consent).
verifier=$(openssl rand -base64 48 | tr '+/' '-_' | tr -d '=\n')
challenge_s256=$(printf '%s' "$verifier" | openssl dgst -binary -sha256 | openssl base64 -A | tr '+/' '-_' | tr -d '=')
state=$(openssl rand -hex 16)
location=$(curl -sS -o /dev/null -w '%{redirect_url}' -G "$authorize" \
  -H "X-Dev-Auto-Approve: dev@tridenttaxis.test" \
  --data-urlencode response_type=code --data-urlencode "client_id=$client_id" \
  --data-urlencode "redirect_uri=$redirect_uri" --data-urlencode "scope=openid email profile" \
  --data-urlencode "state=$state" --data-urlencode "code_challenge=$challenge_s256" \
  --data-urlencode code_challenge_method=S256 --data-urlencode "resource=$MCP")
code=$(sed -n 's/.*[?&]code=\([^&]*\).*/\1/p' <<<"$location")
[ -n "$code" ] || fail "authorize did not redirect with a code: $location"
[ "$(sed -n 's/.*[?&]state=\([^&]*\).*/\1/p' <<<"$location")" = "$state" ] || fail "state mismatch: $location"
ok "authorized"

# 5. Exchange the code.
tokens=$(curl -fsS -X POST "$token" --data-urlencode grant_type=authorization_code \
  --data-urlencode "code=$code" --data-urlencode "redirect_uri=$redirect_uri" \
  --data-urlencode "client_id=$client_id" --data-urlencode "code_verifier=$verifier" \
  --data-urlencode "resource=$MCP")
access=$(jq -r .access_token <<<"$tokens")
refresh=$(jq -r .refresh_token <<<"$tokens")
[ "$access" != null ] && [ "$refresh" != null ] || fail "token response: $tokens"
ok "exchanged the code for tokens"

# 6. Call the tool with the token.
body=$(mcp_call "$launch_dir/h6" -H "Authorization: Bearer $access")
jq -e '(.result.isError | not) and .result.structuredContent.tariffVersion == "argyll-2024-04" and (.result.structuredContent.fareGBP | type) == "number"' <<<"$body" >/dev/null ||
  fail "estimate_fare with the token: $(head -1 "$launch_dir/h6") $body"
ok "estimate_fare with the token: $(jq -r '.result.content[0].text' <<<"$body")"

# 7. Refresh: the refresh token rotates and the new access token works.
next=$(curl -fsS -X POST "$token" --data-urlencode grant_type=refresh_token \
  --data-urlencode "refresh_token=$refresh" --data-urlencode "client_id=$client_id")
[ "$(jq -r .refresh_token <<<"$next")" != "$refresh" ] || fail "refresh token did not rotate: $next"
body=$(mcp_call "$launch_dir/h7" -H "Authorization: Bearer $(jq -r .access_token <<<"$next")")
jq -e '(.result.structuredContent.fareGBP | type) == "number"' <<<"$body" >/dev/null || fail "call after refresh: $body"
ok "refreshed; the rotated pair works"
echo "run-oauth --check: PASS"
