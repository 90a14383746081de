#!/usr/bin/env bash
# Runs the official MCP conformance suite's client mode
# (@modelcontextprotocol/conformance, pinned in package-lock.json) against
# the trident CLI: `trident conformance URL`, one scenario at a time.
#
# Each scenario passes when the suite's runner exits 0: no FAILURE and no
# WARNING check, no timeout, and the client exited 0 (except where the
# scenario expects the client to give up). Scenarios in baseline.yml's
# "client" list are expected to fail; one that passes is a stale entry and
# fails the run, as does any scenario of the suite that this script neither
# runs nor lists as inapplicable.
#
# Offline and loopback only: the suite's servers listen on localhost and the
# client talks only to them. Needs `npm ci` done (Node 22 from the npm
# package "node") and Go. Exit status: 0 when every result matches the
# baseline, 1 otherwise.
#
# Usage: client/conformance/run.sh [SCENARIO...]   (default: all below)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

node=node_modules/.bin/node
suite=node_modules/@modelcontextprotocol/conformance/dist/index.js
if [[ ! -x $node || ! -f $suite ]]; then
	echo "conformance: $node or $suite missing; run npm ci at the repository root" >&2
	exit 1
fi

# The scenarios that apply to a public client using the authorization code
# flow with PKCE, by suite: core, auth, backcompat (MCP 2025-03-26), draft.
scenarios=(
	initialize
	tools_call
	elicitation-sep1034-client-defaults
	sse-retry

	auth/metadata-default
	auth/metadata-var1
	auth/metadata-var2
	auth/metadata-var3
	auth/basic-cimd
	auth/scope-from-www-authenticate
	auth/scope-from-scopes-supported
	auth/scope-omitted-when-undefined
	auth/scope-step-up
	auth/scope-retry-limit
	auth/token-endpoint-auth-basic
	auth/token-endpoint-auth-post
	auth/token-endpoint-auth-none
	auth/pre-registration

	auth/2025-03-26-oauth-metadata-backcompat
	auth/2025-03-26-oauth-endpoint-fallback

	auth/resource-mismatch
	auth/offline-access-scope
	auth/offline-access-not-supported
)

# flags_for prints extra flags of the trident command for one scenario.
flags_for() {
	case $1 in
	auth/offline-access-scope)
		# This scenario's issuer supports client ID metadata documents, and
		# after the client exits the runner fetches the client_id URL to
		# read its grant_types: with the suite's default URL that is a
		# lookup of conformance-test.local, off this machine. Registering
		# dynamically instead keeps the run on loopback, and the runner
		# reads grant_types from the registration request.
		echo "-client-metadata-url="
		;;
	esac
}

# baseline_list prints the entries of one top-level list of baseline.yml.
baseline_list() {
	awk -v key="$1" '
		/^[A-Za-z_-]+:/ { section = $1; sub(":", "", section); next }
		section == key && /^[[:space:]]+-[[:space:]]/ { sub(/^[[:space:]]+-[[:space:]]+/, ""); sub(/[[:space:]]+#.*/, ""); print }
	' "$here/baseline.yml"
}
mapfile -t expected < <(baseline_list client)
mapfile -t inapplicable < <(baseline_list inapplicable)
contains() {
	local x=$1
	shift
	local e
	for e in "$@"; do [[ $e == "$x" ]] && return 0; done
	return 1
}

source scripts/lib/launch.sh
launch_build trident ./client/cmd/trident

status=0
# Every scenario of the pinned suite is either run or listed inapplicable.
while read -r name; do
	if ! contains "$name" "${scenarios[@]}" && ! contains "$name" "${inapplicable[@]}"; then
		echo "UNLISTED $name: the suite has it; run it or list it in baseline.yml" >&2
		status=1
	fi
done < <("$node" "$suite" list --client | sed -n 's/^  - \([^ ]*\).*/\1/p')

if (($# > 0)); then
	scenarios=("$@")
fi

passed=0 failed=0 xfail=0
summary=()
start=$SECONDS
for s in "${scenarios[@]}"; do
	log="$launch_dir/${s//\//_}.log"
	t0=$SECONDS
	rc=0
	# The runner splits --command on spaces and appends the server URL.
	"$node" "$suite" client --scenario "$s" --timeout 30000 \
		--command "$launch_dir/trident conformance $(flags_for "$s")" >"$log" 2>&1 || rc=$?
	dt=$((SECONDS - t0))
	if contains "$s" "${expected[@]}"; then
		if ((rc == 0)); then
			summary+=("STALE  $s (${dt}s): passes but baseline.yml lists it as failing")
			failed=$((failed + 1)) status=1
		else
			summary+=("XFAIL  $s (${dt}s)")
			xfail=$((xfail + 1))
		fi
	elif ((rc == 0)); then
		summary+=("PASS   $s (${dt}s)")
		passed=$((passed + 1))
	else
		summary+=("FAIL   $s (${dt}s)")
		failed=$((failed + 1)) status=1
		echo "---- $s: runner exited $rc; its report:" >&2
		grep -E 'FAILURE|WARNING|Error|exited|timed out|Stderr|conformance:' "$log" | sed 's/\x1b\[[0-9;]*m//g' | head -40 >&2 || true
	fi
done

echo "MCP conformance, client mode ($("$node" "$suite" --version)), trident CLI:"
printf '  %s\n' "${summary[@]}"
for s in "${inapplicable[@]}"; do
	echo "  N/A    $s (inapplicable, see baseline.yml)"
done
echo "$((SECONDS - start))s; expected failures count as skipped"
echo "conformance: $passed passed, $failed failed, $xfail skipped"
exit $status
