#!/usr/bin/env bash
# Runs the official MCP conformance suite's client mode
# (@modelcontextprotocol/conformance, both lines pinned in package-lock.json)
# against the trident CLI: `trident conformance URL`, one scenario at a
# time, in each line and wire:
#
#   0.1.16              every scenario, at the wire the suite picks for it;
#                       expected failures in baseline.yml;
#   0.2 at 2025-11-25   (npm alias mcp-conformance-0-2) the scenarios of the
#   0.2 at 2026-07-28   handshake wire and of the stateless wire, each
#                       scenario of both once per wire, as the 0.2 line's
#                       requirement sets have it; expected failures in
#                       baseline-0.2.yml;
#   0.2 at 2025-03-26   the scenarios of the 0.2 line that no later wire
#                       has (the 2025-03-26 backwards-compatibility ones),
#                       at the last wire that has them.
#
# The client is never told the wire: it finds out from the server (the
# suite's MCP_CONFORMANCE_PROTOCOL_VERSION is not read), as it would in
# use.
#
# Each scenario passes when the suite's runner exits 0: no FAILURE and no
# WARNING check, no timeout, and the client exited 0 (except where the
# scenario expects the client to give up). Scenarios in a baseline's
# "client" list are expected to fail; one that passes is a stale entry and
# fails the run, as the suite's own baseline check does. So does a
# scenario of a line that is neither run nor listed in that baseline's
# "inapplicable" list (only extension scenarios may be).
#
# Offline and loopback only: the suite's servers listen on localhost and the
# client talks only to them. Needs `npm ci` done (Node 22 from the npm
# package "node") and Go. Exit status: 0 when every result matches its
# baseline, 1 otherwise.
#
# Usage: client/conformance/run.sh [SCENARIO...]   (default: all; named
#        ones run in every line and wire that has them)
#        LINES="0.2" client/conformance/run.sh     (one line: 0.1 or 0.2)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

node=node_modules/.bin/node
v01=node_modules/@modelcontextprotocol/conformance/dist/index.js
v02=node_modules/mcp-conformance-0-2/dist/index.js
for f in "$node" "$v01" "$v02"; do
	if [[ ! -e $f ]]; then
		echo "conformance: $f missing; run npm ci at the repository root" >&2
		exit 1
	fi
done

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

# baseline_list prints the entries of one top-level list of a baseline file.
baseline_list() {
	awk -v key="$2" '
		/^[A-Za-z_-]+:/ { section = $1; sub(":", "", section); next }
		section == key && /^[[:space:]]+-[[:space:]]/ { sub(/^[[:space:]]+-[[:space:]]+/, ""); sub(/[[:space:]]+#.*/, ""); print }
	' "$1"
}
contains() {
	local x=$1
	shift
	local e
	for e in "$@"; do [[ $e == "$x" ]] && return 0; done
	return 1
}

# listed SUITE [ARGS...] prints "name versions" for each client scenario
# the suite lists (versions comma-separated, "extension" for extensions).
listed() {
	local suite=$1
	shift
	"$node" "$suite" list --client "$@" | sed -n 's/^  - \([^ ]*\) \[\(.*\)\]$/\1 \2/p'
}

source scripts/lib/launch.sh
launch_build trident ./client/cmd/trident

wanted=("$@")
status=0
summaries=()
# run_wire LABEL SUITE BASELINE WIRE SCENARIO... runs scenarios at WIRE
# ("" lets the suite pick) and records the line's summary.
run_wire() {
	local label=$1 suite=$2 baseline=$3 wire=$4
	shift 4
	local expected=() s
	mapfile -t expected < <(baseline_list "$baseline" client)
	local passed=0 failed=0 xfail=0 start=$SECONDS lines=()
	for s in "$@"; do
		if ((${#wanted[@]} > 0)) && ! contains "$s" "${wanted[@]}"; then
			continue
		fi
		local log="$launch_dir/${label// /_}-${s//\//_}.log" t0=$SECONDS rc=0
		local wireflag=()
		[[ -n $wire ]] && wireflag=(--spec-version "$wire")
		# The runner splits --command on spaces and appends the server URL.
		"$node" "$suite" client --scenario "$s" "${wireflag[@]}" --timeout 30000 \
			--command "$launch_dir/trident conformance $(flags_for "$s")" >"$log" 2>&1 || rc=$?
		local dt=$((SECONDS - t0)) result
		result=$(sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -m1 '^Passed:' || echo "no result")
		if contains "$s" "${expected[@]}"; then
			if ((rc == 0)); then
				lines+=("STALE  $s (${dt}s) $result: passes but $(basename "$baseline") lists it as failing")
				failed=$((failed + 1)) status=1
			else
				lines+=("XFAIL  $s (${dt}s) $result")
				xfail=$((xfail + 1))
			fi
		elif ((rc == 0)); then
			lines+=("PASS   $s (${dt}s) $result")
			passed=$((passed + 1))
		else
			lines+=("FAIL   $s (${dt}s) $result")
			failed=$((failed + 1)) status=1
			echo "---- $label, $s: runner exited $rc; its report:" >&2
			sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E 'FAILURE|WARNING|Error|exited|timed out|Stderr|conformance:' | head -40 >&2 || true
		fi
	done
	((passed + failed + xfail > 0)) || return 0
	echo "MCP conformance, client mode ($label), trident CLI:"
	printf '  %s\n' "${lines[@]}"
	summaries+=("$label: $passed passed, $failed failed, $xfail expected failures ($((SECONDS - start))s)")
}

# check_listed BASELINE RUN... fails the run for each scenario the suite
# lists that is neither run (one of RUN) nor inapplicable in BASELINE.
check_listed() {
	local baseline=$1 suite=$2
	shift 2
	local inapplicable=() name versions
	mapfile -t inapplicable < <(baseline_list "$baseline" inapplicable)
	while read -r name versions; do
		if ! contains "$name" "$@" && ! contains "$name" "${inapplicable[@]}"; then
			echo "UNLISTED $name [$versions]: the suite has it; run it or list it in $(basename "$baseline")" >&2
			status=1
		fi
	done < <(listed "$suite")
	for name in "${inapplicable[@]}"; do
		echo "  N/A    $name (inapplicable, see $(basename "$baseline"))"
	done
}

if [[ " ${LINES:-0.1 0.2} " == *" 0.1 "* ]]; then
	mapfile -t inapplicable < <(baseline_list "$here/baseline.yml" inapplicable)
	run=()
	while read -r name _; do
		contains "$name" "${inapplicable[@]}" || run+=("$name")
	done < <(listed "$v01")
	run_wire "$("$node" "$v01" --version)" "$v01" "$here/baseline.yml" "" "${run[@]}"
	check_listed "$here/baseline.yml" "$v01" "${run[@]}"
fi

if [[ " ${LINES:-0.1 0.2} " == *" 0.2 "* ]]; then
	version=$("$node" "$v02" --version)
	baseline=$here/baseline-0.2.yml
	mapfile -t inapplicable < <(baseline_list "$baseline" inapplicable)
	all_run=()
	for wire in 2025-11-25 2026-07-28; do
		run=()
		while read -r name _; do
			contains "$name" "${inapplicable[@]}" || run+=("$name")
		done < <(listed "$v02" --spec-version "$wire")
		run_wire "$version at $wire" "$v02" "$baseline" "$wire" "${run[@]}"
		all_run+=("${run[@]}")
	done
	# A scenario of no wire above (one removed before 2025-11-25) runs at the
	# last wire it belongs to.
	declare -A older=()
	while read -r name versions; do
		if contains "$name" "${all_run[@]}" || contains "$name" "${inapplicable[@]}" || [[ $versions == extension ]]; then
			continue
		fi
		older[${versions##*,}]+=" $name"
	done < <(listed "$v02")
	for wire in "${!older[@]}"; do
		read -ra run <<<"${older[$wire]}"
		run_wire "$version at $wire" "$v02" "$baseline" "$wire" "${run[@]}"
		all_run+=("${run[@]}")
	done
	check_listed "$baseline" "$v02" "${all_run[@]}"
fi

echo "client conformance summary (expected failures count as skipped):"
printf '  %s\n' "${summaries[@]}"
exit $status
