// Command loadbench is the load half of `make bench`: the comparison a user
// choosing an MCP server would make, on loopback, in one run.
//
// It starts three HTTP servers as separate processes and drives each with
// the same estimate_fare tools/call:
//
//   - trident-mcp, the real server binary (server/cmd/trident-mcp) with its
//     defaults (embedded geocoder, router and tariff);
//   - the mcp-go peer (tools/cmd/benchpeer): the same three tools on
//     github.com/mark3labs/mcp-go in stateless mode over the same engine, so
//     only the MCP layer differs;
//   - the floor: a bare net/http handler answering trident-mcp's own reply
//     from memory, the cost of HTTP on this machine with nothing behind it.
//
// Targets are measured A B C A B C at each connection count (1, 16 and 64 by
// default), in public mode and in OAuth mode (both servers behind the
// project's bearer-token verifier, one token minted by the in-process dev
// issuer and reused, as an assistant reuses its token). It prints req/s, p50
// and p99 per target and the ratios to the peer and to the floor:
//
//	go run ./tools/cmd/loadbench
//	go run ./tools/cmd/loadbench -conns 16 -modes public -d 2s
//
// Then the Relay half (relay.go): the five Relay tools on /mcp/rides of a
// trident-mcp whose store is SQLite and of one whose store is PostgreSQL (a
// database made for the run on -postgres and dropped after it), beside
// estimate_fare on the same process, with each tool's ratio to the fare's
// throughput (-relay= skips it, -relay-only skips the rest).
//
// The load generator is a closed loop over raw keep-alive connections (see
// gen.go); the floor's rate says whether it left the servers room: it should
// be several times theirs, and a warning says so when it is not. Traffic
// only goes to 127.0.0.1. Timing on a shared machine is noisy; compare the
// ratios of one run, not absolute numbers across runs.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/metrics"
)

// requestBody is the specification's estimate_fare sample request
// (contracts/trident/samples/estimate_fare.success.json), compacted.
var requestBody = func() string {
	s, err := tridentcontracts.Set.ReadFile("samples/estimate_fare.success.json")
	if err != nil {
		panic(err) // embedded: a missing sample is a build defect
	}
	var pair struct{ Request json.RawMessage }
	var req bytes.Buffer
	if json.Unmarshal(s, &pair) != nil || json.Compact(&req, pair.Request) != nil {
		panic("loadbench: the estimate_fare sample is not JSON")
	}
	return req.String()
}()

const (
	// wantInReply is checked in every reply: the sample's fare.
	wantInReply = `"fareGBP":62.4`
	// fareClock pins the tariff to a weekday day rate, as the sample expects.
	fareClock = "2025-06-18T09:00:00Z"
	// resourceURL is the RFC 8707 resource both servers are bound to in
	// OAuth mode, so that one token serves both.
	resourceURL = "http://localhost/mcp"
)

type config struct {
	conns     []int
	modes     []string
	rounds    int
	dur, warm time.Duration
	serverBin string
	peerBin   string
	// The Relay half (relay.go): engines to run it on, none to skip it.
	relayEngines []string
	relayTools   []string // a subset of relayTools, in its order
	relayRounds  int
	relayDur     time.Duration
	postgresURL  string
	skipFare     bool
}

func main() {
	var c config
	conns := flag.String("conns", "1,16,64", "connection counts, comma-separated")
	modes := flag.String("modes", "public,oauth", "modes, comma-separated: public, oauth")
	// Many short rounds rather than a few long ones: on a shared machine the
	// background load changes by the second, and interleaving spreads it
	// over every target alike.
	flag.IntVar(&c.rounds, "rounds", 4, "rounds per target and connection count (A B A B)")
	flag.DurationVar(&c.dur, "d", 2*time.Second, "measured time per target per round")
	flag.DurationVar(&c.warm, "warmup", 300*time.Millisecond, "unrecorded time before each measurement")
	flag.StringVar(&c.serverBin, "server", "", "trident-mcp binary (default: go build ./server/cmd/trident-mcp)")
	flag.StringVar(&c.peerBin, "peer", "", "benchpeer binary (default: go build ./tools/cmd/benchpeer)")
	relay := flag.String("relay", "sqlite,postgres", "Relay store engines to measure the Relay tools on, comma-separated (empty: no Relay table)")
	tools := flag.String("relay-tools", strings.Join(relayTools, ","), "Relay tools to measure, comma-separated (a profile of one tool's load wants the others left out)")
	flag.IntVar(&c.relayRounds, "relay-rounds", 2, "rounds per Relay tool and connection count")
	flag.DurationVar(&c.relayDur, "relay-d", 1500*time.Millisecond, "measured time per Relay tool per round")
	flag.StringVar(&c.postgresURL, "postgres", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL server on which a database is made (and dropped) for the Relay run")
	flag.BoolVar(&c.skipFare, "relay-only", false, "skip the estimate_fare comparison with the peer and the floor")
	flag.Parse()
	var err error
	if c.relayEngines, err = relayEnginesFlag(*relay); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(2)
	}
	if c.relayTools, err = relayToolsFlag(*tools); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(2)
	}
	for _, s := range strings.Split(*conns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "loadbench: -conns: %q is not a positive number\n", s)
			os.Exit(2)
		}
		c.conns = append(c.conns, n)
	}
	for _, m := range strings.Split(*modes, ",") {
		if m = strings.TrimSpace(m); m != "public" && m != "oauth" {
			fmt.Fprintf(os.Stderr, "loadbench: -modes: %q is neither public nor oauth\n", m)
			os.Exit(2)
		}
		c.modes = append(c.modes, strings.TrimSpace(m))
	}
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

// target is one server under load.
type target struct {
	name string
	addr string // host:port
	proc *exec.Cmd
}

// pid is the target's process id, or 0 when it is not a process of ours.
func (t *target) pid() int {
	if t.proc == nil || t.proc.Process == nil {
		return 0
	}
	return t.proc.Process.Pid
}

func (t *target) stop() {
	if t.proc != nil && t.proc.Process != nil {
		t.proc.Process.Signal(syscall.SIGTERM)
		t.proc.Wait()
	}
}

const (
	nameOurs  = "trident-mcp"
	namePeer  = "mcp-go peer"
	nameFloor = "net/http floor"
)

func run(c config) error {
	tmp, err := os.MkdirTemp("", "loadbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if c.serverBin == "" {
		if c.serverBin, err = build(tmp, "./server/cmd/trident-mcp"); err != nil {
			return err
		}
	}
	if c.peerBin == "" {
		if c.peerBin, err = build(tmp, "./tools/cmd/benchpeer"); err != nil {
			return err
		}
	}

	fmt.Printf("loadbench: over loopback; %d CPUs shared by the generator and the server under test; load average at start: %s\n", runtime.NumCPU(), loadAverage())
	if !c.skipFare {
		if err := runFare(c); err != nil {
			return err
		}
	}
	if len(c.relayEngines) > 0 {
		results, err := runRelay(&c, tmp)
		if err != nil {
			return fmt.Errorf("Relay: %w", err)
		}
		reportRelay(os.Stdout, c, results)
	}
	fmt.Printf("\nload average at the end: %s\n", loadAverage())
	return nil
}

// loadAverage is /proc/loadavg's three averages: the machine is shared,
// and a figure means little without the load beside it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// runFare is the estimate_fare comparison: trident-mcp, the mcp-go peer and
// the floor.
func runFare(c config) error {
	fmt.Println("estimate_fare:")
	fmt.Printf("each target: %d rounds of %v (after %v warm-up) per connection count; every mode's servers run side by side and are measured in turn (A B C A B C)\n\n", c.rounds, c.dur, c.warm)
	slots, stop, err := setUp(c)
	defer stop()
	if err != nil {
		return err
	}
	results := map[string]map[int]map[string]load{} // mode, conns, target
	for _, n := range c.conns {
		runs := map[*slot][]load{}
		for round := range c.rounds {
			for _, sl := range slots {
				fmt.Fprintf(os.Stderr, "  %d conns, round %d: %s, %s mode\n", n, round+1, sl.target.name, sl.mode)
				l, err := drive(sl.target.addr, sl.target.pid(), sl.req, n, c.warm, c.dur)
				if err != nil {
					return fmt.Errorf("%s in %s mode at %d connections: %w", sl.target.name, sl.mode, n, err)
				}
				runs[sl] = append(runs[sl], l)
			}
		}
		for _, sl := range slots {
			if results[sl.mode] == nil {
				results[sl.mode] = map[int]map[string]load{}
			}
			if results[sl.mode][n] == nil {
				results[sl.mode][n] = map[string]load{}
			}
			results[sl.mode][n][sl.target.name] = merge(runs[sl])
		}
	}
	report(os.Stdout, c, results)
	for _, sl := range slots {
		if sl.mode == "oauth" && sl.target.name == nameOurs {
			lookups, err := verdictLookups(sl.target.addr)
			if err != nil {
				return fmt.Errorf("%s in OAuth mode: %w", nameOurs, err)
			}
			fmt.Printf("\n%s in OAuth mode, verdict cache look-ups over the whole run: %s\n", nameOurs, lookups)
		}
	}
	return nil
}

// verdictLookups reads the verdict cache's counters from the server's
// /metrics: that the OAuth runs measured the cached path, one full check
// and hits after it, and not a signature check per call.
func verdictLookups(addr string) (string, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, metrics.VerdictCacheLookups+"{") && strings.Contains(line, `endpoint="/mcp"`) {
			_, result, _ := strings.Cut(line, `result="`)
			result, n, _ := strings.Cut(result, `"} `)
			out = append(out, n+" "+result)
		}
	}
	if len(out) == 0 {
		return "", errors.New("/metrics has no " + metrics.VerdictCacheLookups + " for /mcp")
	}
	slices.Sort(out)
	return strings.Join(out, ", "), sc.Err()
}

// slot is one target driven with one mode's request.
type slot struct {
	mode   string
	target *target
	req    request
}

// setUp starts every server the modes need, checks that each answers the
// benchmark's call (and, in OAuth mode, refuses it without the token), and
// returns the measurement order. stop ends whatever was started, also on
// error.
func setUp(c config) (slots []*slot, stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, f := range slices.Backward(stops) {
			f()
		}
	}
	var reply []byte // trident-mcp's answer, which the floor repeats
	var floor *target
	for _, mode := range c.modes {
		header := map[string]string{}
		var serverEnv, peerArgs []string
		if mode == "oauth" {
			iss, stopIssuer, err := startIssuer()
			if err != nil {
				return nil, stop, err
			}
			stops = append(stops, stopIssuer)
			token, err := iss.MintAccessToken(devissuer.TokenClaims{Resource: resourceURL, ExpiresAt: time.Now().Add(2 * time.Hour)})
			if err != nil {
				return nil, stop, err
			}
			header["Authorization"] = "Bearer " + token
			serverEnv = []string{"MCP_REQUIRE_OAUTH=true", "OAUTH_ISSUER=" + iss.IssuerURL(), "MCP_RESOURCE_URL=" + resourceURL}
			peerArgs = []string{"-oauth-issuer", iss.IssuerURL(), "-resource-url", resourceURL}
		}
		ours, err := startServer(c.serverBin, serverEnv)
		if err != nil {
			return nil, stop, err
		}
		stops = append(stops, ours.stop)
		peer, err := startPeer(namePeer, c.peerBin, append([]string{"-clock", fareClock}, peerArgs...)...)
		if err != nil {
			return nil, stop, err
		}
		stops = append(stops, peer.stop)
		if floor == nil {
			if reply, err = fetch(ours.addr, newRequest(ours.addr, "/mcp", requestBody, header, wantInReply)); err != nil {
				return nil, stop, fmt.Errorf("%s: %w", nameOurs, err)
			}
			if floor, err = startPeer(nameFloor, c.peerBin, "-floor", "-reply", string(reply)); err != nil {
				return nil, stop, err
			}
			stops = append(stops, floor.stop)
		}
		for _, t := range []*target{ours, peer, floor} {
			sl := &slot{mode: mode, target: t, req: newRequest(t.addr, "/mcp", requestBody, header, wantInReply)}
			if _, err := fetch(t.addr, sl.req); err != nil {
				return nil, stop, fmt.Errorf("%s in %s mode: %w", t.name, mode, err)
			}
			if mode == "oauth" && t != floor {
				// Without the token the server must refuse: OAuth is really on.
				anon := newRequest(t.addr, "/mcp", requestBody, nil, "")
				if _, err := fetch(t.addr, anon); err == nil || !strings.Contains(err.Error(), "HTTP 401") {
					return nil, stop, fmt.Errorf("%s in OAuth mode answered a call without a token: %v", t.name, err)
				}
			}
			slots = append(slots, sl)
		}
	}
	return slots, stop, nil
}

// fetch sends one request on a fresh connection and returns the body.
func fetch(addr string, req request) ([]byte, error) {
	c := &client{addr: addr}
	defer c.close()
	if err := c.do(req); err != nil {
		return nil, err
	}
	return c.body, nil
}

// build compiles pkg into dir with the module's go command.
func build(dir, pkg string) (string, error) {
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s: %w", pkg, err)
	}
	return out, nil
}

// startServer runs trident-mcp on a free loopback port and waits for /readyz.
// LOG_LEVEL=warn drops the per-request access log, which the peer has no
// equivalent of.
func startServer(bin string, env []string) (*target, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), append([]string{
		"ADDR=" + addr, "PUBLIC_BASE_URL=http://" + addr, "FARE_CLOCK=" + fareClock, "LOG_LEVEL=warn",
		"MCP_REQUIRE_OAUTH=false", "RATE_LIMIT=",
	}, env...)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &target{name: nameOurs, addr: addr, proc: cmd}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return t, nil
			}
		}
		if time.Now().After(deadline) {
			t.stop()
			return nil, fmt.Errorf("%s did not become ready on %s: %v", nameOurs, addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startPeer runs benchpeer and reads the address it prints.
func startPeer(name, bin string, args ...string) (*target, error) {
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	// The collector's target trident-mcp runs with (GOGC, its setting's
	// default), so that the comparison is of the code and not of a
	// runtime setting any Go program could be given; an operator's own
	// GOGC in the environment reaches both alike.
	cmd.Env = os.Environ()
	if _, set := os.LookupEnv("GOGC"); !set {
		cmd.Env = append(cmd.Env, "GOGC="+strconv.Itoa(server.DefaultGCPercent))
	}
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &target{name: name, proc: cmd}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	go io.Copy(io.Discard, stdout)
	u, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on http://")
	if err != nil || !ok {
		t.stop()
		return nil, fmt.Errorf("%s did not start: %q %v", name, line, err)
	}
	t.addr = u
	return t, nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// startIssuer serves the dev issuer in this process: the servers fetch its
// JWKS once at start, so it is off the measured path.
func startIssuer() (*devissuer.Issuer, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	iss, err := devissuer.New(devissuer.Options{BaseURL: "http://" + ln.Addr().String()})
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	hs := &http.Server{Handler: iss.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	return iss, func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintln(os.Stderr, "loadbench: stopping the dev issuer:", err)
		}
		iss.Close()
	}, nil
}
