package trident_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/contracts"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
	"github.com/tridenttaxis/trident-mcp/server/servertest"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// daytime pins the tariff clock: the seed's samples were priced in the day
// band, and a replay at 23:00 would (rightly) quote the night band.
var daytime = time.Date(2025, 3, 12, 11, 0, 0, 0, time.UTC)

func fixedClock() time.Time { return daytime }

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// opts configures a test's host and the Trident endpoint it mounts.
type opts struct {
	host server.Options
	ep   trident.Options
}

// endpoint builds the Trident endpoint, with the tariff clock pinned to
// daytime unless o sets its own.
func endpoint(t testing.TB, o *trident.Options) *mcphttp.Endpoint {
	t.Helper()
	if o == nil {
		o = &trident.Options{}
	}
	if o.Now == nil {
		o.Now = fixedClock
	}
	if o.Logger == nil {
		o.Logger = quietLogger()
	}
	ep, err := trident.New(o)
	if err != nil {
		t.Fatalf("trident.New: %v", err)
	}
	return ep
}

// resolve pins the endpoint's clock, and the host's limiter clock with it.
func (o *opts) resolve(t testing.TB) (*server.Options, *mcphttp.Endpoint) {
	t.Helper()
	if o == nil {
		o = &opts{}
	}
	ep := endpoint(t, &o.ep)
	if o.host.Now == nil {
		o.host.Now = o.ep.Now
	}
	return &o.host, ep
}

// newServer builds the host with the Trident endpoint, as the binary does.
func newServer(t testing.TB, o *opts) *server.Server {
	t.Helper()
	host, ep := o.resolve(t)
	return servertest.New(t, host, ep)
}

// start serves the host with the Trident endpoint on a loopback listener,
// as a user would reach it.
func start(t testing.TB, o *opts) *httptest.Server {
	t.Helper()
	host, ep := o.resolve(t)
	return servertest.Start(t, host, ep)
}

// TestSampleReplay replays every request/response pair of contracts/trident/samples
// against a freshly started server with the default configuration and
// compares the responses field for field.
func TestSampleReplay(t *testing.T) {
	samples, err := tridentcontracts.Set.Samples()
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) < 6 {
		t.Fatalf("only %d samples loaded", len(samples))
	}
	ts := start(t, nil)
	for _, s := range samples {
		if s.Mode == "oauth" {
			continue // TestOAuthUnauthorizedSample
		}
		t.Run(s.Name, func(t *testing.T) {
			h := kit.Headers()
			for k, v := range s.HTTP.RequestHeaders {
				h.Set(k, v)
			}
			r := kit.Post(t, ts.URL+"/mcp", h, string(s.Request))
			if r.Status != s.HTTP.Status {
				t.Errorf("status = %d, want %d; body %s", r.Status, s.HTTP.Status, r.Body)
			}
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
			if d := kit.JSONDiff(t, s.Response, r.Body); d != "" {
				t.Errorf("response differs from the sample (-want +got):\n%s", d)
			}
			// Same value is not enough for people comparing curl output
			// with the docs: links must read "&dropoff=", not "\u0026dropoff=".
			if bytes.Contains(r.Body, []byte(`\u0026`)) || bytes.Contains(r.Body, []byte(`\u003c`)) {
				t.Errorf("reply is HTML-escaped: %s", r.Body)
			}
			for k, v := range s.HTTP.Headers {
				if got := r.Header.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

// TestProgressStreamsOverSSE: with a progress token, estimate_fare and
// start_booking report their four steps (geocoding each end, routing,
// pricing) before the result, which is the JSON reply's.
func TestProgressStreamsOverSSE(t *testing.T) {
	ts := start(t, nil)
	for _, tool := range []string{"estimate_fare", "start_booking"} {
		t.Run(tool, func(t *testing.T) {
			sample := loadSample(t, tool+".success")
			var req map[string]any
			json.Unmarshal(sample.Request, &req)
			req["params"].(map[string]any)["_meta"] = map[string]any{"progressToken": "tok-1"}
			body, _ := json.Marshal(req)
			r := kit.Post(t, ts.URL+"/mcp", kit.Headers(), string(body))
			if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("status %d, Content-Type %q; want 200 text/event-stream", r.Status, r.Header.Get("Content-Type"))
			}
			frames := kit.Frames(t, r.Body)
			if len(frames) != 5 {
				t.Fatalf("got %d frames, want 4 progress + 1 response:\n%s", len(frames), r.Body)
			}
			wantMsgs := []string{"Geocoding pickup", "Geocoding dropoff", "Routing", "Pricing"}
			for i, f := range frames[:4] {
				if f["method"] != "notifications/progress" {
					t.Fatalf("frame %d method = %v", i, f["method"])
				}
				p := f["params"].(map[string]any)
				got := map[string]any{"token": p["progressToken"], "progress": p["progress"], "total": p["total"], "message": p["message"]}
				want := map[string]any{"token": "tok-1", "progress": float64(i), "total": float64(4), "message": wantMsgs[i]}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("progress frame %d (-want +got):\n%s", i, d)
				}
			}
			final, _ := json.Marshal(frames[4])
			if d := kit.JSONDiff(t, sample.Response, final); d != "" {
				t.Errorf("final frame differs from the JSON reply (-want +got):\n%s", d)
			}
		})
	}
}

func loadSample(t testing.TB, name string) contracts.Sample {
	t.Helper()
	samples, err := tridentcontracts.Set.Samples()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range samples {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no sample %s", name)
	return contracts.Sample{}
}

// call sends one tools/call and returns the decoded JSON-RPC response.
func call(t testing.TB, url, tool, args string) map[string]any {
	t.Helper()
	r := kit.Post(t, url+"/mcp", kit.Headers(), kit.CallBody("7", tool, args))
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	return kit.Decode(t, r.Body).(map[string]any)
}
