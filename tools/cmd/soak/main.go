// Command soak runs the server binary for minutes under steady mixed load
// and fails if a resource it holds keeps growing or a call goes wrong, for
// `make soak` (not part of `make test`).
//
// It starts the binary (-bin) on a loopback port, or drives a server
// already running (-url), with -c keep-alive clients calling for -d: every
// tool, valid and bad arguments, unknown tools, malformed JSON, a refused
// Accept header, addresses that do not resolve, and calls answered as
// text/event-stream with progress. Each reply is checked against what it
// must be; any other reply, or a transport error, is a failed call.
//
// Every -every it reads the server's own /metrics: resident memory
// (process_resident_memory_bytes), heap in use (go_memstats_heap_inuse_bytes),
// goroutines (go_goroutines) and open file descriptors (process_open_fds).
// At the end it prints the samples as a table and fits a line to the
// second half of each series (after warm-up): a series whose fitted growth
// over that half exceeds 10% of its mean (and a floor: 8 MiB of memory, 16
// goroutines or descriptors) is growing without bound, and soak exits 1.
//
//	go build -o /tmp/trident-mcp ./server/cmd/trident-mcp
//	go run ./tools/cmd/soak -bin /tmp/trident-mcp -d 3m
//
// Traffic only goes to 127.0.0.1 (or -url).
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	bin := flag.String("bin", "", "server binary to start on a loopback port")
	base := flag.String("url", "", "base URL of a server already running (instead of -bin)")
	conc := flag.Int("c", 64, "concurrent keep-alive clients")
	dur := flag.Duration("d", 3*time.Minute, "how long to drive the server")
	every := flag.Duration("every", 10*time.Second, "how often to sample /metrics")
	flag.Parse()
	if err := run(*bin, *base, *conc, *dur, *every); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

func run(bin, base string, conc int, dur, every time.Duration) error {
	switch {
	case bin != "" && base == "":
		var stop func() string
		var err error
		if base, stop, err = start(bin); err != nil {
			return err
		}
		defer func() {
			if logs := stop(); logs != "" {
				fmt.Fprintf(os.Stderr, "--- server log (warnings and errors)\n%s", tail(logs, 4000))
			}
		}()
	case base == "" || bin != "":
		return errors.New("give -bin or -url")
	}
	if _, err := sample(base); err != nil {
		return err
	}
	fmt.Printf("soak: %d clients for %v against %s, sampling every %v\n", conc, dur, base, every)

	var calls, failed atomic.Int64
	var firstFail atomic.Value
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var wg sync.WaitGroup
	clients := make([]*http.Client, conc)
	for i := range clients {
		clients[i] = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 30 * time.Second}
		wg.Go(func() {
			for n := i; ctx.Err() == nil; n += conc {
				c := mix[n%len(mix)]
				if err := c.do(clients[i], base, n); err != nil && ctx.Err() == nil {
					failed.Add(1)
					firstFail.CompareAndSwap(nil, fmt.Sprintf("%s: %v", c.name, err))
				}
				calls.Add(1)
			}
		})
	}

	started := time.Now()
	var rows []row
	take := func(label string) {
		s, err := sample(base)
		if err != nil {
			failed.Add(1)
			firstFail.CompareAndSwap(nil, "sampling /metrics: "+err.Error())
			return
		}
		s.at, s.label, s.calls, s.failed = time.Since(started), label, calls.Load(), failed.Load()
		rows = append(rows, s)
	}
	take("")
	tick := time.NewTicker(every)
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-tick.C:
			take("")
		}
	}
	tick.Stop()
	wg.Wait()
	for _, c := range clients {
		c.CloseIdleConnections()
	}
	time.Sleep(time.Second) // the server's connection goroutines end once the clients hang up
	take("idle")

	printTable(rows)
	var problems []string
	if n := failed.Load(); n > 0 {
		problems = append(problems, fmt.Sprintf("%d of %d calls failed; the first: %v", n, calls.Load(), firstFail.Load()))
	}
	problems = append(problems, growth(rows)...)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n  "))
	}
	fmt.Printf("soak: %d calls, none failed; every series flat\n", calls.Load())
	return nil
}

// start runs bin on a free loopback port and waits for /readyz; stop ends
// it and returns what it logged.
func start(bin string) (base string, stop func() string, err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := l.Addr().String()
	l.Close()
	base = "http://" + addr
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "ADDR="+addr, "PUBLIC_BASE_URL="+base, "LOG_LEVEL=warn", "SHUTDOWN_DELAY=0", "RATE_LIMIT=off")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() string {
		cmd.Process.Kill()
		cmd.Wait()
		return logs.String()
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base, stop, nil
			}
		}
	}
	return "", nil, fmt.Errorf("%s never answered /readyz with 200:\n%s", bin, tail(stop(), 2000))
}

// row is one sample of the server's resources.
type row struct {
	at                     time.Duration
	label                  string
	calls, failed          int64
	rss, heap, gorout, fds float64
}

// gauges are the /metrics series sampled, in table order.
var gauges = []struct {
	name, column string
	get          func(*row) *float64
	floor        float64 // growth below this is never a leak
	unit         float64
}{
	{"process_resident_memory_bytes", "RSS MiB", func(r *row) *float64 { return &r.rss }, 8 << 20, 1 << 20},
	{"go_memstats_heap_inuse_bytes", "heap MiB", func(r *row) *float64 { return &r.heap }, 8 << 20, 1 << 20},
	{"go_goroutines", "goroutines", func(r *row) *float64 { return &r.gorout }, 16, 1},
	{"process_open_fds", "open fds", func(r *row) *float64 { return &r.fds }, 16, 1},
}

func sample(base string) (row, error) {
	var r row
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return r, err
	}
	defer resp.Body.Close()
	found := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		for _, g := range gauges {
			if name == g.name {
				v, err := strconv.ParseFloat(value, 64)
				if err != nil {
					return r, fmt.Errorf("/metrics %s: %v", name, err)
				}
				*g.get(&r) = v
				found++
			}
		}
	}
	if found != len(gauges) {
		return r, fmt.Errorf("/metrics has %d of the %d series sampled", found, len(gauges))
	}
	return r, sc.Err()
}

func printTable(rows []row) {
	fmt.Printf("\n%8s %10s %7s", "t", "calls", "failed")
	for _, g := range gauges {
		fmt.Printf(" %10s", g.column)
	}
	fmt.Println()
	for _, r := range rows {
		at := r.at.Round(time.Second).String()
		if r.label != "" {
			at = r.label
		}
		fmt.Printf("%8s %10d %7d", at, r.calls, r.failed)
		for _, g := range gauges {
			fmt.Printf(" %10.1f", *g.get(&r)/g.unit)
		}
		fmt.Println()
	}
	fmt.Println()
}

// growth fits a least-squares line to the second half of the samples
// taken under load (the first half is warm-up: pools, caches and the heap
// finding their size) and reports each series whose fitted rise over that
// half is above both 10% of its mean and its floor.
func growth(rows []row) []string {
	var load []row
	for _, r := range rows {
		if r.label == "" {
			load = append(load, r)
		}
	}
	half := load[len(load)/2:]
	if len(half) < 3 {
		return []string{fmt.Sprintf("only %d samples in the second half: run longer (-d) or sample more often (-every)", len(half))}
	}
	var out []string
	for _, g := range gauges {
		var n, sx, sy, sxx, sxy float64
		for _, r := range half {
			x, y := r.at.Seconds(), *g.get(&r)
			n, sx, sy, sxx, sxy = n+1, sx+x, sy+y, sxx+x*x, sxy+x*y
		}
		slope := (n*sxy - sx*sy) / (n*sxx - sx*sx)
		span := half[len(half)-1].at.Seconds() - half[0].at.Seconds()
		rise, mean := slope*span, sy/n
		fmt.Printf("%-30s second half: mean %10.1f, fitted change %+9.1f (%+.1f%%)\n", g.name, mean/g.unit, rise/g.unit, 100*rise/mean)
		if rise > 0.10*mean && rise > g.floor {
			out = append(out, fmt.Sprintf("%s grows: %+.1f over the second half (mean %.1f)", g.name, rise/g.unit, mean/g.unit))
		}
	}
	return out
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
