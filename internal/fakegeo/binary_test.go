package fakegeo_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/internal/fakegeo"
	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// The real server binary, pointed at the fakes, as an operator would point
// it at Nominatim and OSRM. What it must show over HTTP: whatever an engine
// does, estimate_fare answers 200 with a ROUTING_UNAVAILABLE tool result
// (GEOCODE_FAILED when Nominatim knows no such address) within GEO_TIMEOUT
// plus a margin, while the breaker or the cool-down keeps further calls off
// the engine; and it quotes again soon after the engine heals.
const (
	binTimeout     = 500 * time.Millisecond  // GEO_TIMEOUT
	binBreakerOpen = time.Second             // GEO_BREAKER_OPEN: outlasts both waves on a loaded machine
	binMargin      = 2500 * time.Millisecond // generous: the machines are shared
	binCalls       = 64                      // concurrent calls per wave
	binDistinct    = 16                      // distinct pickups per wave (4 identical calls each)
)

// pickups numbers street addresses so that no two waves share one, and no
// cached answer hides a fault.
var pickups atomic.Int64

// outcome is one estimate_fare call as a client saw it.
type outcome struct {
	status int
	code   string // "ok", a catalogue name, or what else came back
	took   time.Duration
}

// fareClient posts estimate_fare over keep-alive connections.
type fareClient struct {
	url    string
	http   *http.Client
	byText map[string]string // tool error text -> catalogue name
}

func newFareClient(t *testing.T, base string) *fareClient {
	t.Helper()
	entries, err := tridentcontracts.Set.Errors()
	if err != nil {
		t.Fatal(err)
	}
	c := &fareClient{url: base + "/mcp", http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: binCalls}}, byText: map[string]string{}}
	for _, e := range entries {
		if m := e.Messages["estimate_fare"]; m != "" {
			c.byText[m] = e.Name
		}
	}
	if len(c.byText) == 0 {
		t.Fatal("the catalogue names no estimate_fare refusal texts")
	}
	t.Cleanup(c.http.CloseIdleConnections)
	return c
}

func (c *fareClient) call(pickup string) outcome {
	args, _ := json.Marshal(map[string]any{"pickup": pickup, "dropoff": "Glasgow Airport"})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":` + string(args) + `}}`
	req, _ := http.NewRequest(http.MethodPost, c.url, bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return outcome{code: "transport: " + err.Error(), took: time.Since(start)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	o := outcome{status: resp.StatusCode, took: time.Since(start)}
	var rpc struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	switch {
	case err != nil:
		o.code = "body: " + err.Error()
	case json.Unmarshal(b, &rpc) != nil || rpc.Result == nil:
		o.code = "not a tool result: " + string(b)
	case !rpc.Result.IsError:
		o.code = "ok"
	case len(rpc.Result.Content) == 1 && c.byText[rpc.Result.Content[0].Text] != "":
		o.code = c.byText[rpc.Result.Content[0].Text]
	default:
		o.code = "unknown refusal: " + string(b)
	}
	return o
}

// wave sends binCalls concurrent calls over binDistinct new pickups.
func (c *fareClient) wave() []outcome {
	base := pickups.Add(binDistinct) - binDistinct + 1 // the binDistinct numbers up to the new value
	out := make([]outcome, binCalls)
	var wg sync.WaitGroup
	for k := range binCalls {
		wg.Go(func() { out[k] = c.call(fmt.Sprintf("%d Sinclair Street, Helensburgh", base+int64(k%binDistinct))) })
	}
	wg.Wait()
	return out
}

func check(t *testing.T, name string, out []outcome, want string) (maxTook, median time.Duration) {
	t.Helper()
	times := make([]time.Duration, len(out))
	for k, o := range out {
		if o.status != http.StatusOK || o.code != want {
			t.Errorf("%s call %d: HTTP %d %s, want 200 %s", name, k, o.status, o.code, want)
		}
		if o.took > binTimeout+binMargin {
			t.Errorf("%s call %d took %v, want at most GEO_TIMEOUT %v plus %v", name, k, o.took, binTimeout, binMargin)
		}
		times[k] = o.took
	}
	slices.Sort(times)
	return times[len(times)-1], times[len(times)/2]
}

// recover calls with new pickups every 20 ms until a quote succeeds.
func (c *fareClient) recover(t *testing.T, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		o := c.call(fmt.Sprintf("%d Sinclair Street, Helensburgh", pickups.Add(1)))
		if o.code == "ok" {
			return time.Since(start)
		}
		if o.status != http.StatusOK || time.Since(start) > limit {
			t.Fatalf("no quote within %v of the engine healing: last HTTP %d %s", time.Since(start), o.status, o.code)
		}
		<-tick.C
	}
}

// goroutines reads the server's go_goroutines gauge from /metrics once its
// connections have settled: the client's idle ones closed, the fakes'
// connections to the server's transport cut. It waits up to limit for the
// count to come down to at most want (0: no wait).
func goroutines(t *testing.T, base string, c *fareClient, fakes []*fakegeo.Server, want int, limit time.Duration) int {
	t.Helper()
	c.http.CloseIdleConnections()
	for _, f := range fakes {
		f.CloseClientConnections()
	}
	read := func() int {
		req, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
		req.Close = true // leave no connection of ours behind
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "go_goroutines "); ok {
				n, err := strconv.ParseFloat(v, 64)
				if err == nil {
					return int(n)
				}
			}
		}
		t.Fatalf("no go_goroutines in /metrics:\n%s", b)
		return 0
	}
	n := read()
	start := time.Now()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for want > 0 && n > want && time.Since(start) < limit {
		<-tick.C
		n = read()
	}
	return n
}

func buildServer(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	return testserver.Build(t)
}

func TestServerBinaryUnderBackendFaults(t *testing.T) {
	bin := buildServer(t)
	nom, osrm := fakegeo.NewNominatim(), fakegeo.NewOSRM()
	defer nom.Close()
	defer osrm.Close()
	nom.SetRetryAfter("2")
	osrm.SetRetryAfter("2")
	base := testserver.Start(t, bin, testserver.FreeAddr(t),
		"GEOCODER=nominatim", "NOMINATIM_URL="+nom.URL, "ROUTER=osrm", "OSRM_URL="+osrm.URL,
		"GEO_TIMEOUT="+binTimeout.String(), "NOMINATIM_MIN_INTERVAL=0",
		"GEO_BREAKER_FAILURES=3", "GEO_BREAKER_OPEN="+binBreakerOpen.String(), "LOG_LEVEL=error")
	c := newFareClient(t, base)
	if o := c.call("Helensburgh Central Station"); o.code != "ok" {
		t.Fatalf("healthy engines: HTTP %d %s", o.status, o.code)
	}
	fakes := []*fakegeo.Server{nom, osrm}
	before := goroutines(t, base, c, fakes, 0, 0)
	defer func() {
		// Every held exchange ends within GEO_TIMEOUT; a few goroutines of
		// slack for the runtime's own.
		after := goroutines(t, base, c, fakes, before+5, binTimeout+10*time.Second)
		t.Logf("server goroutines: %d before the faults, %d after", before, after)
		if after > before+5 {
			t.Errorf("the server holds %d goroutines after the faults, %d before: a leak", after, before)
		}
	}()
	for _, eng := range []struct {
		name string
		fake *fakegeo.Server
	}{{"nominatim", nom}, {"osrm", osrm}} {
		for _, fault := range fakegeo.Faults {
			t.Run(eng.name+"/"+string(fault), func(t *testing.T) {
				want := "ROUTING_UNAVAILABLE"
				if eng.name == "nominatim" && fault == fakegeo.Empty {
					want = "GEOCODE_FAILED"
				}
				eng.fake.SetFault(fault)
				before := eng.fake.Requests()
				max1, med1 := check(t, "first wave", c.wave(), want)
				sent1 := eng.fake.Requests() - before
				max2, med2 := check(t, "second wave", c.wave(), want)
				sent2 := eng.fake.Requests() - before - sent1
				// A "no such address" is no failure: the engine keeps
				// answering, so only the first wave's checks apply.
				if want == "ROUTING_UNAVAILABLE" && sent2 > 1 {
					t.Errorf("second wave sent %d requests to %s, want at most one probe: the breaker or the cool-down should hold calls back", sent2, eng.name)
				}
				eng.fake.SetFault(fakegeo.Healthy)
				rec := c.recover(t, binBreakerOpen+10*time.Second)
				t.Logf("%-9s %-15s to %s: first wave max %4dms median %4dms (%2d upstream requests for %d calls), second wave max %4dms median %4dms (%d requests); quoting again %4dms after healing",
					eng.name, fault, want, max1.Milliseconds(), med1.Milliseconds(), sent1, binCalls, max2.Milliseconds(), med2.Milliseconds(), sent2, rec.Milliseconds())
			})
		}
	}
}

// TestServerBinaryCache counts upstream requests for a burst of identical
// quotes, with the cache and without (GEO_CACHE_TTL=0).
func TestServerBinaryCache(t *testing.T) {
	bin := buildServer(t)
	for _, tc := range []struct {
		name              string
		env               string
		maxBurst, wantSeq int64 // Nominatim requests: burst (at most), then the same call 64 times in a row
	}{
		{"cache", "GEO_CACHE_TTL=10m", 2, 0},
		{"no cache", "GEO_CACHE_TTL=0", 2 * binCalls, 2 * binCalls},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nom, osrm := fakegeo.NewNominatim(), fakegeo.NewOSRM()
			defer nom.Close()
			defer osrm.Close()
			base := testserver.Start(t, bin, testserver.FreeAddr(t),
				"GEOCODER=nominatim", "NOMINATIM_URL="+nom.URL, "ROUTER=osrm", "OSRM_URL="+osrm.URL,
				"NOMINATIM_MIN_INTERVAL=0", tc.env, "LOG_LEVEL=error")
			c := newFareClient(t, base)
			out := make([]outcome, binCalls)
			var wg sync.WaitGroup
			for k := range binCalls {
				wg.Go(func() { out[k] = c.call("Helensburgh Central Station") })
			}
			wg.Wait()
			for k, o := range out {
				if o.code != "ok" {
					t.Fatalf("call %d: HTTP %d %s", k, o.status, o.code)
				}
			}
			burstNom, burstOSRM := nom.Requests(), osrm.Requests()
			for range binCalls {
				if o := c.call("Helensburgh Central Station"); o.code != "ok" {
					t.Fatalf("HTTP %d %s", o.status, o.code)
				}
			}
			seqNom, seqOSRM := nom.Requests()-burstNom, osrm.Requests()-burstOSRM
			t.Logf("%-8s %d identical concurrent quotes: %d Nominatim + %d OSRM requests; %d more in a row: %d + %d",
				tc.name, binCalls, burstNom, burstOSRM, binCalls, seqNom, seqOSRM)
			if burstNom > tc.maxBurst || seqNom != tc.wantSeq {
				t.Errorf("Nominatim requests: burst %d (want at most %d), in a row %d (want %d)", burstNom, tc.maxBurst, seqNom, tc.wantSeq)
			}
		})
	}
}
