# shellcheck shell=bash
# One way to start the project's processes for a test, a suite or a dev run,
# sourced by scripts/with-server.sh (and so server/conformance.sh and
# scripts/inspector.sh), scripts/run-oauth.sh, scripts/test-collections.sh,
# e2e/ts/trident-server/run-conformance.sh,
# conformance/run-local.sh and client/conformance/run.sh, so that building,
# picking a port, waiting for readiness and stopping are written once. (Go
# tests start the server through internal/testserver, the same way.)
#
# After `source scripts/lib/launch.sh` (from the module root):
#   $launch_dir                   a temporary directory, removed on exit
#   curl ARGS...                  curl with a 15 s bound: every curl here talks
#                                 to a process the script started, and a wedged
#                                 one must fail the run, not hang it
#   launch_build NAME PKG         go build PKG into $launch_dir/NAME
#   free_port                     print a loopback port nothing listens on
#   launch_bg LOG CMD [ARGS...]   start CMD in the background, output to LOG
#                                 (stopped on exit)
#   wait_ready NAME URL LOG       wait until URL answers 200 while the process
#                                 started last lives; on failure show LOG
#   start_server ADDR [ENV=V...]  run $launch_dir/trident-mcp (built with
#                                 launch_build trident-mcp ...) on ADDR with
#                                 PUBLIC_BASE_URL=http://ADDR and FARE_CLOCK
#                                 (default 2025-06-18T09:00:00Z: the samples
#                                 are daytime quotes), then wait for
#                                 $LAUNCH_READY_PATH (default /readyz: in OAuth
#                                 mode, ready once the issuer's keys are in);
#                                 its log is $launch_dir/server-ADDR.log
# Every process started here gets SIGTERM when the script exits.

launch_dir="$(mktemp -d)"
launch_pids=()

curl() { command curl --max-time 15 "$@"; }

launch_cleanup() {
	local pid
	for pid in "${launch_pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${launch_pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$launch_dir"
}
trap launch_cleanup EXIT

launch_build() {
	go build -o "$launch_dir/$1" "$2"
}

# free_port picks below the kernel's ephemeral range (32768-60999 on
# Linux by default), where no outgoing connection of a test can take the
# port between this check and the server's bind: picking inside it made the
# runs flake with "address already in use" on a busy machine.
free_port() {
	local p low=32768
	if [[ -r /proc/sys/net/ipv4/ip_local_port_range ]]; then
		read -r low _ </proc/sys/net/ipv4/ip_local_port_range
	fi
	for _ in $(seq 1 100); do
		p=$((10000 + RANDOM % (low - 10000)))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	echo "launch: no free loopback port found" >&2
	return 1
}

launch_bg() {
	local log="$1"
	shift
	"$@" >"$log" 2>&1 &
	launch_pids+=("$!")
}

wait_ready() {
	local name="$1" url="$2" log="$3" pid="${launch_pids[-1]}"
	for _ in $(seq 1 600); do
		if curl -fsS -o /dev/null "$url" 2>/dev/null; then
			return 0
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "launch: $name exited:" >&2
			cat "$log" >&2
			return 1
		fi
		sleep 0.05
	done
	echo "launch: $name never answered $url with 200:" >&2
	curl -sS "$url" >&2 || true
	cat "$log" >&2
	return 1
}

start_server() {
	local addr="$1"
	shift
	local log="$launch_dir/server-$addr.log"
	# SHUTDOWN_DELAY=0: no load balancer to drain for, so the exit's SIGTERM
	# stops the server at once.
	launch_bg "$log" env ADDR="$addr" PUBLIC_BASE_URL="http://$addr" SHUTDOWN_DELAY=0 \
		FARE_CLOCK="${FARE_CLOCK:-2025-06-18T09:00:00Z}" "$@" "$launch_dir/trident-mcp"
	wait_ready "the server on $addr" "http://$addr${LAUNCH_READY_PATH:-/readyz}" "$log"
}
