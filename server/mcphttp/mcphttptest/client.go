package mcphttptest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/metrics"
)

// Config is the front door's configuration as the host's defaults fill it
// for an endpoint served alone: public mode, PublicBaseURL
// http://localhost:8080, 1 MiB bodies, a quiet log, and metrics in a
// registry of their own, which reg gathers.
func Config(t testing.TB) (cfg mcphttp.Config, reg *prometheus.Registry) {
	t.Helper()
	reg = prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	return mcphttp.Config{
		PublicBaseURL:   "http://localhost:8080",
		MaxBodyBytes:    1 << 20,
		BodyReadTimeout: 30 * time.Second,
		Logger:          slog.New(slog.DiscardHandler),
		Metrics:         m,
	}, reg
}

// Serve serves ep's front door alone (every path is the endpoint) on a
// loopback listener until the test ends. The limiter's clock is time.Now;
// a test with its own builds the handler with [mcphttp.New].
func Serve(t testing.TB, ep *mcphttp.Endpoint, cfg mcphttp.Config) *httptest.Server {
	t.Helper()
	h, err := mcphttp.New(ep, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// Headers are the headers of the specification's curl examples: a JSON
// body, both reply types accepted, revision 2025-06-18.
func Headers() http.Header {
	return http.Header{
		"Content-Type":         {"application/json"},
		"Accept":               {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {mcphttp.Revision20250618},
	}
}

// CallBody is the body of a tools/call of tool with id (raw JSON) and
// args (raw JSON).
func CallBody(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
}

// Reply is what a client sees of one HTTP reply.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
	// Close is true when the reply closed its connection (net/http reads
	// Connection: close into it and drops the header).
	Close bool
}

// Post sends body to url with header h and reads the whole reply.
func Post(t testing.TB, url string, h http.Header, body string) Reply {
	t.Helper()
	return Do(t, http.MethodPost, url, h, body)
}

// Get fetches url.
func Get(t testing.TB, url string) Reply {
	t.Helper()
	return Do(t, http.MethodGet, url, nil, "")
}

// Do sends one request and reads the whole reply.
func Do(t testing.TB, method, url string, h http.Header, body string) Reply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if h != nil {
		req.Header = h.Clone()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return Reply{Status: resp.StatusCode, Header: resp.Header, Body: b, Close: resp.Close}
}

// Decode parses b as JSON, failing t when it is not.
func Decode(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return v
}

// JSONDiff compares two JSON documents value for value ("" when equal).
func JSONDiff(t testing.TB, want, got []byte) string {
	t.Helper()
	return cmp.Diff(Decode(t, want), Decode(t, got))
}

// Frames reads an event stream into the JSON objects of its data fields,
// one per event.
func Frames(t testing.TB, body []byte) []map[string]any {
	t.Helper()
	var frames []map[string]any
	var data []string
	flush := func() {
		if len(data) == 0 {
			return
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(strings.Join(data, "\n")), &m); err != nil {
			t.Fatalf("SSE data is not a JSON object: %v", err)
		}
		frames = append(frames, m)
		data = nil
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		switch line := sc.Text(); {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	flush()
	return frames
}

// CheckRPC fails t unless b is one JSON-RPC 2.0 message: a response (an
// id, and a result or an error with an integer code and a message) or a
// notification (a method, no id).
func CheckRPC(t testing.TB, b []byte) {
	t.Helper()
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   *struct {
			Code    *int64  `json:"code"`
			Message *string `json:"message"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&m); err != nil || dec.More() {
		t.Fatalf("not one JSON object (%v): %q", err, b)
	}
	switch {
	case m.JSONRPC != "2.0":
		t.Fatalf("jsonrpc is %q, want 2.0: %s", m.JSONRPC, b)
	case m.Method != "" && m.ID == nil && m.Result == nil && m.Error == nil: // a notification
	case m.ID == nil:
		t.Fatalf("a response without an id: %s", b)
	case (m.Result == nil) == (m.Error == nil):
		t.Fatalf("want exactly one of result and error: %s", b)
	case m.Error != nil && (m.Error.Code == nil || m.Error.Message == nil):
		t.Fatalf("an error without an integer code and a message: %s", b)
	}
}

// CheckReplies fails t unless every JSON-RPC message of an endpoint's
// reply is well formed ([CheckRPC]): the body of an application/json
// reply, each event of a text/event-stream one. Other replies (202, an
// empty body) pass.
func CheckReplies(t testing.TB, contentType string, body []byte) {
	t.Helper()
	ct, _, _ := mime.ParseMediaType(contentType)
	switch {
	case len(body) == 0:
	case ct == "application/json":
		CheckRPC(t, body)
	case ct == "text/event-stream":
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				CheckRPC(t, []byte(data))
			}
		}
	}
}
