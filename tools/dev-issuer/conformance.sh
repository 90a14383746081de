#!/usr/bin/env bash
# Runs the official MCP conformance suite's authorization mode (the 0.2 line,
# @modelcontextprotocol/conformance 0.2.0-alpha.12 as npm alias
# mcp-conformance-0-2) against a freshly built dev issuer (tools/dev-issuer),
# the Supabase-compatible authorization server of development and tests,
# twice:
#
#   registered   a client registered by dynamic client registration (RFC
#                7591) for the suite's callback;
#   metadata     a client named by the URL of its client ID metadata
#                document, served here on loopback (the registration MCP
#                2026-07-28 prefers; the issuer fetches it).
#
# The suite's authorization-code-grant scenario prints an authorization URL
# for a person to open; the issuer runs with --auto-approve-user (DEV ONLY,
# loopback), so fetching that URL signs the dev user in and redirects to the
# suite's callback at once, and curl plays the browser.
#
# A run passes when the suite exits 0 and no check of it is a FAILURE or a
# WARNING (the suite itself exits 0 on warnings). Offline and loopback only.
# Exit status: 0 when both runs pass, 1 otherwise.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

node=node_modules/.bin/node
suite=node_modules/mcp-conformance-0-2/dist/index.js
for f in "$node" "$suite"; do
	if [[ ! -e $f ]]; then
		echo "authorization conformance: $f missing: run 'make npm' first" >&2
		exit 1
	fi
done

source scripts/lib/launch.sh
launch_build dev-issuer ./tools/dev-issuer

issuer_port=$(free_port)
callback_port=$(free_port)
document_port=$(free_port)
issuer=http://127.0.0.1:$issuer_port/auth/v1
callback=http://127.0.0.1:$callback_port/callback
resource=http://localhost:8080/mcp

launch_bg "$launch_dir/issuer.log" "$launch_dir/dev-issuer" --addr "127.0.0.1:$issuer_port" \
	--auto-approve-user dev@tridenttaxis.test --dev-client-metadata-loopback
wait_ready "the dev issuer" "$issuer/health" "$launch_dir/issuer.log"

# The client ID metadata document, at the URL that is its client_id.
document_url=http://127.0.0.1:$document_port/client-metadata.json
cat >"$launch_dir/client-metadata.json" <<EOF
{
  "client_id": "$document_url",
  "client_name": "MCP conformance suite (authorization mode)",
  "redirect_uris": ["$callback"],
  "grant_types": ["authorization_code", "refresh_token"],
  "response_types": ["code"],
  "token_endpoint_auth_method": "none"
}
EOF
# shellcheck disable=SC2016 # JavaScript, not shell
launch_bg "$launch_dir/document.log" "$node" -e '
	const [file, port] = process.argv.slice(1);
	require("http").createServer((req, res) => {
		if (req.url !== "/client-metadata.json") { res.writeHead(404); return res.end(); }
		res.writeHead(200, { "Content-Type": "application/json" });
		res.end(require("fs").readFileSync(file));
	}).listen(Number(port), "127.0.0.1");
' "$launch_dir/client-metadata.json" "$document_port"
wait_ready "the client metadata document" "$document_url" "$launch_dir/document.log"

registered=$(curl -fsS -X POST "$issuer/oauth/clients/register" -H 'Content-Type: application/json' \
	-d "{\"client_name\":\"MCP conformance suite (authorization mode)\",\"redirect_uris\":[\"$callback\"],\"token_endpoint_auth_method\":\"none\"}" |
	"$node" -e 'let s = ""; process.stdin.on("data", c => s += c).on("end", () => console.log(JSON.parse(s).client_id))')

status=0
# run LABEL CLIENT_ID runs the authorization mode once.
run() {
	local label=$1 client_id=$2 out=$launch_dir/$1
	mkdir -p "$out"
	echo "=== authorization conformance ($("$node" "$suite" --version)), dev issuer, $label client ($client_id) ==="
	launch_bg "$out.log" "$node" "$suite" authorization --url "$issuer" --client-id "$client_id" \
		--port "$callback_port" --resource "$resource" -o "$out"
	local pid=${launch_pids[-1]} authorize=""
	for _ in $(seq 1 300); do
		authorize=$(grep -m1 -o "^$issuer/oauth/authorize?[^[:space:]]*" "$out.log" || true)
		[[ -n $authorize ]] || ! kill -0 "$pid" 2>/dev/null && break
		sleep 0.1
	done
	if [[ -z $authorize ]]; then
		echo "authorization conformance: the suite printed no authorization URL" >&2
		status=1
	elif ! curl -fsS -L -o /dev/null "$authorize"; then
		echo "authorization conformance: following the authorization URL did not reach the suite's callback" >&2
		status=1
	fi
	local rc=0
	wait "$pid" || rc=$?
	sed 's/\x1b\[[0-9;]*m//g' "$out.log" | sed -n '/=== SUMMARY ===/,$p' | sed '/^$/d'
	# The suite counts passes and failures only; a warning must fail too.
	local bad
	bad=$("$node" -e '
		const fs = require("fs"), path = require("path");
		for (const d of fs.readdirSync(process.argv[1])) {
			for (const c of JSON.parse(fs.readFileSync(path.join(process.argv[1], d, "checks.json")))) {
				if (c.status === "FAILURE" || c.status === "WARNING") console.log(`  ${c.status} ${d}: ${c.id}: ${c.errorMessage ?? c.description}`);
			}
		}' "$out")
	if ((rc != 0)) || [[ -n $bad ]]; then
		echo "authorization conformance: $label client: suite exited $rc" >&2
		[[ -n $bad ]] && echo "$bad" >&2
		sed 's/\x1b\[[0-9;]*m//g' "$out.log" | grep -E 'Error|error' | head -20 >&2 || true
		status=1
	fi
}
run registered "$registered"
run metadata "$document_url"
exit $status
