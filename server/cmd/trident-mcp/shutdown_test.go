package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// fareCall is the specification's estimate_fare sample call.
const fareCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport"}}}`

// callOutcome is one call as a client saw it.
type callOutcome int

const (
	// answered: a 200 whose whole body is the fare.
	answered callOutcome = iota
	// refused: nothing listens any more; the call never reached the server.
	refused
	// queueReset: a new connection reset before any byte of a reply, as
	// the kernel resets a connection it completed into the listener's
	// queue in the instant the listener closed. The server never read it,
	// which the test checks against the server's own count.
	queueReset
	// dropped: anything else, such as a reset on a kept-alive connection
	// or a reply cut short: a call the server took and did not answer.
	dropped
)

var outcomeNames = [...]string{"answered", "refused", "queue reset", "dropped"}

// fareOnce posts one estimate_fare call on c and judges the reply.
func fareOnce(c *http.Client, base string) (o callOutcome, closes bool, err error) {
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", bytes.NewBufferString(fareCall))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	var reused bool
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused },
	}))
	resp, err := c.Do(req)
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return refused, false, err
	case err != nil && !reused && (errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF)):
		return queueReset, false, err
	case err != nil:
		return dropped, false, fmt.Errorf("reused connection %v: %w", reused, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return dropped, resp.Close, fmt.Errorf("reply cut short: %w", err)
	}
	var rpc struct {
		ID     int `json:"id"`
		Result struct {
			StructuredContent struct {
				FareGBP float64 `json:"fareGBP"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &rpc) != nil || rpc.ID != 7 || rpc.Result.StructuredContent.FareGBP <= 0 {
		return dropped, resp.Close, errors.New("not a whole fare: HTTP " + resp.Status + " " + string(body))
	}
	return answered, resp.Close, nil
}

// servedCalls counts the estimate_fare calls the server's access log says
// it answered 200.
func servedCalls(t *testing.T, logs string) int64 {
	t.Helper()
	var n int64
	sc := bufio.NewScanner(strings.NewReader(logs))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Msg, Path, Tool string
			Status          int
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "http request" && line.Path == "/mcp" && line.Tool == "estimate_fare" && line.Status == 200 {
			n++
		}
	}
	return n
}

// TestSIGTERMDropsNoCall drives 64 keep-alive clients calling
// estimate_fare through a SIGTERM of the real binary. Every call the server
// accepted must be answered in full: the server's access log counts the
// calls it answered, and every one of them reached its client whole. The
// only failures allowed are connections the closing listener never handed
// to the server: refused, or reset in its queue. Each client calls until
// it is refused, so the test also shows the server kept serving through
// the drain (SHUTDOWN_DELAY), told every connection to close, turned
// /readyz 503 before the listener closed, and exited 0.
func TestSIGTERMDropsNoCall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	const (
		clients = 64
		delay   = time.Second // SHUTDOWN_DELAY: far longer than a client's pause between calls
	)
	srv := testserver.Run(t, testserver.Build(t), testserver.FreeAddr(t),
		"SHUTDOWN_DELAY="+delay.String(), "SHUTDOWN_TIMEOUT=10s", "LOG_LEVEL=info")

	var counts [len(outcomeNames)]atomic.Int64
	var closes atomic.Int64 // replies that said Connection: close
	var firstDrop atomic.Value
	var sent, wg sync.WaitGroup
	sent.Add(clients)
	for range clients {
		wg.Go(func() {
			c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}, Timeout: 30 * time.Second}
			defer c.CloseIdleConnections()
			for first := true; ; first = false {
				o, closed, err := fareOnce(c, srv.Base)
				counts[o].Add(1)
				if closed {
					closes.Add(1)
				}
				if o == dropped {
					firstDrop.CompareAndSwap(nil, err.Error())
				}
				if first {
					sent.Done()
				}
				if o == refused {
					return
				}
			}
		})
	}
	sent.Wait() // every client is calling on a kept-alive connection
	if err := srv.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// /readyz says 503 while the listener is still open, so a load balancer
	// can take the replica out before anything is refused.
	for {
		resp, err := http.Get(srv.Base + "/readyz")
		if err != nil {
			t.Fatalf("the listener closed before /readyz said 503: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
	}
	wg.Wait()
	if err := srv.Wait(15 * time.Second); err != nil {
		t.Fatalf("after SIGTERM the server exited with %v, want status 0\n%s", err, srv.Logs())
	}
	var got [len(outcomeNames)]int64
	var report []string
	for i := range got {
		got[i] = counts[i].Load()
		report = append(report, fmt.Sprintf("%d %s", got[i], outcomeNames[i]))
	}
	served := servedCalls(t, srv.Logs())
	t.Logf("across SIGTERM with %d keep-alive clients: %s; the server answered %d; %d replies said Connection: close",
		clients, strings.Join(report, ", "), served, closes.Load())
	if got[dropped] != 0 {
		t.Errorf("%d calls dropped, want 0; the first: %v", got[dropped], firstDrop.Load())
	}
	if served != got[answered] {
		t.Errorf("the server answered %d calls, its clients received %d whole: a call the server took was lost", served, got[answered])
	}
	if got[refused] != clients {
		t.Errorf("%d calls refused, want one per client (%d): each client stops at its first refusal", got[refused], clients)
	}
	if closes.Load() < clients {
		t.Errorf("%d replies said Connection: close, want at least one per client (%d)", closes.Load(), clients)
	}
}
