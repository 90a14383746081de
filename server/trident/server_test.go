package trident_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/contracts"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/trident"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
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

// newServer builds the host with the Trident endpoint, as the binary does,
// with the tariff clock (and the limiter's) pinned to daytime unless the
// test sets its own.
func newServer(t testing.TB, o *opts) *server.Server {
	t.Helper()
	if o == nil {
		o = &opts{}
	}
	if o.ep.Now == nil {
		o.ep.Now = fixedClock
	}
	if o.host.Now == nil {
		o.host.Now = o.ep.Now
	}
	if o.host.Logger == nil {
		o.host.Logger = quietLogger()
	}
	o.ep.Logger = o.host.Logger
	ep, err := trident.New(&o.ep)
	if err != nil {
		t.Fatalf("trident.New: %v", err)
	}
	srv, err := server.New(&o.host, ep)
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// start runs a server on a loopback listener, as a user would reach it.
func start(t testing.TB, o *opts) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(newServer(t, o).Handler())
	t.Cleanup(ts.Close)
	return ts
}

// mcpHeaders are the headers of the seed's curl examples.
func mcpHeaders() http.Header {
	return http.Header{
		"Content-Type":         {"application/json"},
		"Accept":               {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2025-06-18"},
	}
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

func post(t testing.TB, url string, h http.Header, body string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, b}
}

func decode(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}

// jsonDiff compares two JSON documents value for value.
func jsonDiff(t testing.TB, want, got []byte) string {
	t.Helper()
	return cmp.Diff(decode(t, want), decode(t, got))
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
			h := mcpHeaders()
			for k, v := range s.HTTP.RequestHeaders {
				h.Set(k, v)
			}
			r := post(t, ts.URL+"/mcp", h, string(s.Request))
			if r.status != s.HTTP.Status {
				t.Errorf("status = %d, want %d; body %s", r.status, s.HTTP.Status, r.body)
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
			if d := jsonDiff(t, s.Response, r.body); d != "" {
				t.Errorf("response differs from the sample (-want +got):\n%s", d)
			}
			// Same value is not enough for people comparing curl output
			// with the docs: links must read "&dropoff=", not "\u0026dropoff=".
			if bytes.Contains(r.body, []byte(`\u0026`)) || bytes.Contains(r.body, []byte(`\u003c`)) {
				t.Errorf("reply is HTML-escaped: %s", r.body)
			}
			for k, v := range s.HTTP.Headers {
				if got := r.header.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

// sseFrames reads an event stream into the JSON of its data fields.
func sseFrames(t testing.TB, body []byte) []map[string]any {
	t.Helper()
	var frames []map[string]any
	var data []string
	flush := func() {
		if len(data) == 0 {
			return
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(strings.Join(data, "\n")), &m); err != nil {
			t.Fatalf("SSE data is not JSON: %v", err)
		}
		frames = append(frames, m)
		data = nil
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	flush()
	return frames
}

func TestProgressStreamsOverSSE(t *testing.T) {
	ts := start(t, nil)
	for _, tool := range []string{"estimate_fare", "start_booking"} {
		t.Run(tool, func(t *testing.T) {
			sample := loadSample(t, tool+".success")
			var req map[string]any
			json.Unmarshal(sample.Request, &req)
			req["params"].(map[string]any)["_meta"] = map[string]any{"progressToken": "tok-1"}
			body, _ := json.Marshal(req)
			r := post(t, ts.URL+"/mcp", mcpHeaders(), string(body))
			if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("status %d, Content-Type %q; want 200 text/event-stream", r.status, r.header.Get("Content-Type"))
			}
			frames := sseFrames(t, r.body)
			if len(frames) != 5 {
				t.Fatalf("got %d frames, want 4 progress + 1 response:\n%s", len(frames), r.body)
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
			if d := jsonDiff(t, sample.Response, final); d != "" {
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
	r := post(t, url+"/mcp", mcpHeaders(), `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`}}`)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	return decode(t, r.body).(map[string]any)
}
