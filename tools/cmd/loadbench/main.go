// Command loadbench measures the MCP server under load against a baseline,
// for `make bench`.
//
// In one process it starts two HTTP servers on loopback ports: the real
// Trident Taxis server (server.New with the embedded geocoder, router and
// tariff) and a bare net/http handler that returns the same estimate_fare
// reply from memory. It drives each with the same number of concurrent
// keep-alive clients for a bounded time (and optionally a bounded count),
// then prints requests per second and latency percentiles for both and the
// server's share of the baseline:
//
//	go run ./tools/cmd/loadbench -c 8 -d 5s
//
// The baseline is the cost of HTTP on this machine with nothing behind it,
// so the ratio says how much of that the MCP stack and the quote keep.
// Traffic only goes to 127.0.0.1.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/tridenttaxis/trident-mcp/contracts"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// request and cannedReply are the specification's estimate_fare sample
// pair (contracts/trident/samples/estimate_fare.success.json), compacted:
// the call every target is driven with, and the baseline's fixed answer.
var request, cannedReply = func() (string, string) {
	s, err := contracts.Trident.ReadFile("samples/estimate_fare.success.json")
	if err != nil {
		panic(err) // embedded: a missing sample is a build defect
	}
	var pair struct{ Request, Response json.RawMessage }
	if err := json.Unmarshal(s, &pair); err != nil {
		panic(err)
	}
	var req, reply bytes.Buffer
	if json.Compact(&req, pair.Request) != nil || json.Compact(&reply, pair.Response) != nil {
		panic("loadbench: the estimate_fare sample is not JSON")
	}
	return req.String(), reply.String()
}()

type result struct {
	name      string
	requests  int
	errors    int
	elapsed   time.Duration
	latencies []time.Duration
}

func (r result) rps() float64 { return float64(r.requests) / r.elapsed.Seconds() }

func (r result) pct(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	i := int(p * float64(len(r.latencies)-1))
	return r.latencies[i]
}

func main() {
	conc := flag.Int("c", 8, "concurrent clients")
	dur := flag.Duration("d", 5*time.Second, "time to drive each target")
	maxN := flag.Int("n", 200000, "stop a target after this many requests (bounds the run)")
	warm := flag.Int("warmup", 200, "requests sent to each target before measuring")
	flag.Parse()
	if err := run(*conc, *dur, *maxN, *warm); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

func run(conc int, dur time.Duration, maxN, warm int) error {
	// Pin the tariff clock to a weekday noon so the reply is the seed's.
	noon := time.Date(2025, 3, 12, 12, 0, 0, 0, time.UTC)
	quiet := slog.New(slog.DiscardHandler)
	ep, err := trident.New(&trident.Options{Logger: quiet, Now: func() time.Time { return noon }})
	if err != nil {
		return err
	}
	srv, err := server.New(&server.Options{Logger: quiet}, ep)
	if err != nil {
		return err
	}
	defer srv.Close()
	baseline := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, cannedReply)
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mcpURL, err := listen(ctx, srv.Handler())
	if err != nil {
		return err
	}
	baseURL, err := listen(ctx, baseline)
	if err != nil {
		return err
	}

	client := &http.Client{Transport: &http.Transport{MaxIdleConns: conc * 2, MaxIdleConnsPerHost: conc * 2}, Timeout: 30 * time.Second}
	fmt.Printf("loadbench: %d clients, %v per target (at most %d requests), estimate_fare over loopback\n", conc, dur, maxN)
	base := drive(client, "baseline (canned reply)", baseURL, conc, dur, maxN, warm)
	mcp := drive(client, "trident-mcp estimate_fare", mcpURL+"/mcp", conc, dur, maxN, warm)
	for _, r := range []result{base, mcp} {
		fmt.Printf("%-28s %8d req  %9.0f req/s  p50 %8v  p99 %8v  errors %d\n",
			r.name, r.requests, r.rps(), r.pct(0.50).Round(time.Microsecond), r.pct(0.99).Round(time.Microsecond), r.errors)
	}
	fmt.Printf("ratio (server/baseline): throughput %.3f, p99 latency %.1fx\n",
		mcp.rps()/base.rps(), float64(mcp.pct(0.99))/float64(base.pct(0.99)))
	if mcp.errors > 0 || base.errors > 0 {
		return errors.New("some requests failed")
	}
	return nil
}

// listen serves h on a free loopback port until ctx ends.
func listen(ctx context.Context, h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	go func() { <-ctx.Done(); hs.Close() }()
	return "http://" + ln.Addr().String(), nil
}

func drive(client *http.Client, name, url string, conc int, dur time.Duration, maxN, warm int) result {
	send := func() (time.Duration, bool) {
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(request)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, false
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		ok := err == nil && resp.StatusCode == 200 && bytes.Contains(body, []byte(`"fareGBP":62.4`))
		return time.Since(start), ok
	}
	for range warm {
		send()
	}
	var (
		mu    sync.Mutex
		res   = result{name: name}
		count int
		wg    sync.WaitGroup
	)
	deadline := time.Now().Add(dur)
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			errs := 0
			for time.Now().Before(deadline) {
				mu.Lock()
				if count >= maxN {
					mu.Unlock()
					break
				}
				count++
				mu.Unlock()
				d, ok := send()
				if !ok {
					errs++
					continue
				}
				lat = append(lat, d)
			}
			mu.Lock()
			res.latencies = append(res.latencies, lat...)
			res.errors += errs
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.requests = len(res.latencies)
	slices.Sort(res.latencies)
	return res
}
