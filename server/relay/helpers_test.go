package relay_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// Coordinates of the places the done-when check names.
var (
	helensburgh = mcptypes.Coordinates{Latitude: 56.00416, Longitude: -4.73253} // Helensburgh Central Station
	glasgowAir  = mcptypes.Coordinates{Latitude: 55.8719, Longitude: -4.43306}  // Glasgow Airport
	jfk         = mcptypes.Coordinates{Latitude: 40.6413, Longitude: -73.7781}
	timesSquare = mcptypes.Coordinates{Latitude: 40.758, Longitude: -73.9855}
)

// dayClock is a weekday morning: Trident's day tariff.
var dayClock = time.Date(2025, 6, 18, 9, 0, 0, 0, time.UTC)

// fakeClock is an injectable clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func pair(c mcptypes.Coordinates) string {
	return strconv.FormatFloat(c.Latitude, 'f', -1, 64) + "," + strconv.FormatFloat(c.Longitude, 'f', -1, 64)
}

// startTrident serves a real Trident /mcp over HTTP, with the embedded
// geocoder (which takes coordinate pairs) and a daytime clock.
func startTrident(tb testing.TB) string {
	tb.Helper()
	ep, err := trident.New(&trident.Options{Now: func() time.Time { return dayClock }, Logger: discard})
	if err != nil {
		tb.Fatal(err)
	}
	return serveHost(tb, ep).URL + "/mcp"
}

// hostURL mounts Relay on the project's host, behind the shared front
// door, and returns the URL of /mcp/rides.
func hostURL(tb testing.TB, ep *mcphttp.Endpoint) (string, *http.Client) {
	tb.Helper()
	ts := serveHost(tb, ep)
	return ts.URL + relay.Path, ts.Client()
}

// serveHost serves an endpoint on the project's host over HTTP until the
// test ends.
func serveHost(tb testing.TB, ep *mcphttp.Endpoint) *httptest.Server {
	tb.Helper()
	srv, err := server.New(&server.Options{Logger: discard}, ep)
	if err != nil {
		tb.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	tb.Cleanup(func() { ts.Close(); srv.Close() })
	return ts
}

// registryWith is the shipped provider registry with provider id changed
// by edit.
func registryWith(tb testing.TB, id string, edit func(*registry.Provider)) *registry.Registry {
	tb.Helper()
	reg, err := registry.Load("")
	if err != nil {
		tb.Fatal(err)
	}
	for i := range reg.Providers {
		if reg.Providers[i].ID == id {
			edit(&reg.Providers[i])
			return reg
		}
	}
	tb.Fatalf("the registry lists no provider %q", id)
	return nil
}

// serve mounts Relay on the host and returns a client for /mcp/rides.
func serve(tb testing.TB, ep *mcphttp.Endpoint) *client.Client {
	tb.Helper()
	url, hc := hostURL(tb, ep)
	c, err := client.New(url, client.WithHTTPClient(hc))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// call invokes a tool and returns its structuredContent, checking that
// content[0].text is the same JSON and whether isError matches wantError.
func call(tb testing.TB, c *client.Client, tool string, args any, wantError bool) json.RawMessage {
	tb.Helper()
	res, err := c.Call(context.Background(), tool, args, nil)
	var te *client.ToolError
	switch {
	case errors.As(err, &te):
		res = te.Result
	case err != nil:
		tb.Fatalf("%s: %v", tool, err)
	}
	if res.IsError != wantError {
		tb.Fatalf("%s: isError = %v, want %v: %s", tool, res.IsError, wantError, res.StructuredContent)
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		tb.Fatalf("%s: content = %+v, want one text block", tool, res.Content)
	}
	var a, b any
	if json.Unmarshal([]byte(res.Content[0].Text), &a) != nil || json.Unmarshal(res.StructuredContent, &b) != nil || !jsonEqual(a, b) {
		tb.Fatalf("%s: content[0].text is not the JSON of structuredContent:\n%s\n%s", tool, res.Content[0].Text, res.StructuredContent)
	}
	return res.StructuredContent
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func unmarshal[T any](tb testing.TB, b json.RawMessage) T {
	tb.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		tb.Fatal(err)
	}
	return v
}

func decodeInto[T any](tb testing.TB, raw json.RawMessage) T {
	tb.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("decoding %T: %v\n%s", v, err, raw)
	}
	return v
}

// refusalOf calls a tool that must refuse and returns the Refusal.
func refusalOf(tb testing.TB, c *client.Client, tool string, args any) mcptypes.Refusal {
	tb.Helper()
	return decodeInto[mcptypes.Refusal](tb, call(tb, c, tool, args, true))
}

func search(tb testing.TB, c *client.Client, args any) mcptypes.SearchRidesResult {
	tb.Helper()
	return decodeInto[mcptypes.SearchRidesResult](tb, call(tb, c, mcptypes.ToolSearchRides, args, false))
}

func ptr[T any](v T) *T { return &v }

// handlers are the endpoint's tool handlers by name, as the front door
// calls them (behind Relay's per-caller limit), for calls in process with a
// caller of the test's choosing.
func handlers(ep *mcphttp.Endpoint) map[string]mcp.ToolHandler {
	h := map[string]mcp.ToolHandler{}
	for _, t := range ep.Tools {
		h[t.Def.Name] = t.Handler
	}
	return h
}

// structuredOf returns a handler's structuredContent and whether it is a
// refusal (the front door's tool error).
func structuredOf(tb testing.TB, res *mcp.CallToolResult, err error) (json.RawMessage, bool) {
	tb.Helper()
	var te *mcphttp.ToolError
	switch {
	case errors.As(err, &te):
		b, _ := json.Marshal(te.Structured)
		return b, true
	case err != nil:
		tb.Fatalf("handler error: %v", err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	return b, res.IsError
}
