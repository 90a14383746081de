package relay_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
)

var update = flag.Bool("update", false, "rewrite contracts/relay/samples from the server's answers")

// sampleKeys sign every sample, so that the options and contexts in them
// verify on a server started with RELAY_SIGNING_KEYS set to this value.
const sampleKeys = "sample-2026:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

// counterIDs mints ses_<ns>0001, opt_<ns>0002, ...: reproducible ids.
func counterIDs(ns string) func(string) string {
	var mu sync.Mutex
	n := 0
	return func(prefix string) string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("%s_%s%04d", prefix, ns, n)
	}
}

// sampleFile is one file of contracts/relay/samples, in the format of
// contracts/samples.
type sampleFile struct {
	Description string          `json:"description"`
	ErrorCode   string          `json:"errorCode,omitempty"`
	HTTP        map[string]int  `json:"http"`
	Request     json.RawMessage `json:"request"`
	Response    json.RawMessage `json:"response"`
}

// rpc posts one tools/call to a Relay HTTP endpoint and returns the
// request, the response and the structuredContent.
type rpc struct {
	url string
	hc  *http.Client
}

func sampleServer(tb testing.TB, o relay.Options) rpc {
	tb.Helper()
	o.Keys = mustKeys(tb, sampleKeys)
	o.Now = func() time.Time { return dayClock }
	o.Logger = discard
	ep, err := relay.New(&o)
	if err != nil {
		tb.Fatal(err)
	}
	url, hc := hostURL(tb, ep)
	return rpc{url: url, hc: hc}
}

func (r rpc) call(tb testing.TB, tool string, args any) (req, resp, structured json.RawMessage) {
	tb.Helper()
	req, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	hr, _ := http.NewRequest(http.MethodPost, r.url, bytes.NewReader(req))
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json, text/event-stream")
	res, err := r.hc.Do(hr)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	resp, _ = io.ReadAll(res.Body)
	var env struct {
		Result struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if res.StatusCode != 200 || json.Unmarshal(resp, &env) != nil {
		tb.Fatalf("%s: HTTP %d %s", tool, res.StatusCode, resp)
	}
	return req, zeroDurations(tb, resp), env.Result.StructuredContent
}

// durations matches every duration_ms, in structuredContent and, escaped,
// in the text block.
var durations = regexp.MustCompile(`(\\?"duration_ms\\?":)[0-9]+`)

// zeroDurations sets every duration_ms to 0, the one value of an answer the
// clock does not decide, and indents the rest unchanged. Samples show 0.
func zeroDurations(tb testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Indent(&buf, durations.ReplaceAll(b, []byte("${1}0")), "", "  "); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// TestSamples drives the server through every sample pair and checks each
// file in contracts/relay/samples is exactly what the server answers (with
// -update, rewrites them). The ids come from a counter, the clock is fixed
// and the keys are sampleKeys, so the answers are reproducible.
func TestSamples(t *testing.T) {
	files := map[string]sampleFile{}
	add := func(name, desc, code string, req, resp json.RawMessage) {
		files[name] = sampleFile{Description: desc, ErrorCode: code, HTTP: map[string]int{"status": 200}, Request: req, Response: resp}
	}
	a := sampleServer(t, relay.Options{TridentURL: startTrident(t), NewID: counterIDs("a")})
	route := map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 2}
	req, resp, sc := a.call(t, "search_rides", route)
	add("search_rides.success", "search_rides between Helensburgh Central Station's and Glasgow Airport's coordinates: status ok, one signed Trident option per vehicle class, each with its seats (the executive option by day is 6240 GBP minor units, basis fixed), beside the providers' browser handoffs.", "", req, resp)
	found := unmarshal[mcptypes.SearchRidesResult](t, sc)
	rc := found.RelayContext
	req, resp, _ = a.call(t, "search_rides", map[string]any{"pickup": jfk, "dropoff": timesSquare, "destination_city": "New York", "party_size": 2})
	add("search_rides.handoff_available", "search_rides between two New York coordinates with no provider credentials configured: status handoff_available, Uber, Lyft and Gett links carrying the coordinates, entry pages for Bolt and FREENOW, Trident not eligible outside its area.", "", req, resp)
	req, resp, _ = a.call(t, "compare_rides", map[string]any{"options": found.Options, "sort_by": "price", "context": rc})
	add("compare_rides.success", "compare_rides over the options of search_rides.success, by price within each comparable group; no provider is queried.", "", req, resp)
	req, resp, _ = a.call(t, "resolve_ride", map[string]any{"option": found.Options[2], "context": rc})
	add("resolve_ride.success", "resolve_ride re-quotes the executive option from Trident and issues a fresh option.", "", req, resp)
	req, resp, _ = a.call(t, "get_ride_booking_handoff", map[string]any{"option": found.Options[0], "context": rc})
	add("get_ride_booking_handoff.success", "get_ride_booking_handoff for the saloon option: Trident's prefilled start_booking link, assistant first, nothing booked.", "", req, resp)
	req, resp, _ = a.call(t, "get_ride_booking_handoff", map[string]any{"provider": "uber", "search": map[string]any{"pickup": jfk, "dropoff": timesSquare, "destination_city": "New York", "party_size": 2}})
	add("get_ride_booking_handoff.provider_entry", "get_ride_booking_handoff for a provider path, as the specification's provider-entry template (no context: a new session): Uber's coordinate link, parameters applied, no selection kept.", "", req, resp)
	req, resp, _ = a.call(t, "continue_journey", map[string]any{"journey_id": rc.JourneyID, "context": rc, "to_connector": "stays", "journey_context": map[string]any{"destination_city": "Glasgow", "destination_airport": "GLA", "party_size": 2}})
	add("continue_journey.success", "continue_journey before the host has reported its connectors for the session: installation_unknown, no next_action, nothing changed.", "", req, resp)
	req, resp, _ = a.call(t, "search_rides", map[string]any{"pickup": map[string]any{"latitude": 91, "longitude": 0}, "party_size": 9, "currency": "gbp"})
	add("errors/invalid_arguments", "search_rides with a latitude above 90, a party of 9 and a lowercase currency: invalid_arguments listing each field.", "RELAY_INVALID_ARGUMENTS", req, resp)
	tampered := found.Options[2]
	tampered.Price.AmountMinor = 100
	req, resp, _ = a.call(t, "compare_rides", map[string]any{"options": []any{tampered}, "context": rc})
	add("errors/invalid_option", "compare_rides with an option whose price was edited: invalid_option.", "RELAY_INVALID_OPTION", req, resp)
	bad := rc
	bad.JourneyID = "jny_someone_else"
	req, resp, _ = a.call(t, "search_rides", map[string]any{"context": bad})
	add("errors/invalid_context", "search_rides with a relay_context whose journey_id was changed: invalid_context.", "RELAY_INVALID_CONTEXT", req, resp)

	// Uber and Lyft behind fakes: Lyft fails, so the search is partial;
	// then Uber answers 429 and its cool-down refuses the next refresh.
	uber := &fakeSource{quotes: []sources.Quote{quote("uberx", 5200, 6100), quote("comfort", 6400, 7600)}}
	lyft := &fakeSource{err: &sources.Error{Code: "upstream_error", Message: "Lyft is unavailable", HTTPStatus: 503}}
	bIDs := counterIDs("b")
	shared := testStore(t, bIDs) // c and d continue b's journey: the configuration changed, not the database
	b := sampleServer(t, relay.Options{Sources: map[string]sources.Source{"uber": uber, "lyft": lyft}, NewID: bIDs, Store: shared})
	req, resp, sc = b.call(t, "search_rides", map[string]any{"pickup": jfk, "dropoff": timesSquare, "party_size": 2})
	add("search_rides.partial", "search_rides with Uber and Lyft configured (test doubles answering in test data mode): Lyft fails with 503, so the status is partial with Uber's options and Lyft's sanitised error.", "", req, resp)
	ny := unmarshal[mcptypes.SearchRidesResult](t, sc)
	uber.err, uber.quotes = &sources.Error{Code: "rate_limited", Message: "Uber is rate limiting Relay", HTTPStatus: 429, RetryAfter: 30 * time.Second}, nil
	req, resp, _ = b.call(t, "resolve_ride", map[string]any{"option": ny.Options[0], "context": ny.RelayContext})
	add("resolve_ride.partial", "resolve_ride when Uber answers 429 with Retry-After: 30: a failed refresh returns no option, and never confirms the old price.", "", req, resp)
	req, resp, _ = b.call(t, "resolve_ride", map[string]any{"option": ny.Options[0], "context": ny.RelayContext})
	add("errors/rate_limited", "resolve_ride during Uber's cool-down: rate_limited with retry_after_seconds, and Uber is not called.", "RELAY_RATE_LIMITED", req, resp)
	c := sampleServer(t, relay.Options{NewID: counterIDs("c"), Store: shared})
	req, resp, _ = c.call(t, "resolve_ride", map[string]any{"option": ny.Options[0], "context": ny.RelayContext})
	add("errors/credentials_required", "resolve_ride of an Uber option on a server without Uber credentials: credentials_required.", "RELAY_CREDENTIALS_REQUIRED", req, resp)
	reg := registryWith(t, "uber", func(p *registry.Provider) { p.API.Authorized = ptr(false) })
	d := sampleServer(t, relay.Options{Registry: reg, Sources: map[string]sources.Source{"uber": uber}, NewID: counterIDs("d"), Store: shared})
	req, resp, _ = d.call(t, "resolve_ride", map[string]any{"option": ny.Options[0], "context": ny.RelayContext})
	add("errors/api_authorization_required", "resolve_ride of an Uber option where the operator's registry marks Uber without API authorization: api_authorization_required.", "RELAY_API_AUTHORIZATION_REQUIRED", req, resp)

	dir := filepath.Join("..", "..", "contracts", "relay", "samples")
	var names []string
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(files[name]); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name+".json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v (run go test ./server/relay -run TestSamples -update)", name, err)
			continue
		}
		if !bytes.Equal(got, buf.Bytes()) {
			t.Errorf("%s is not what the server answers; run go test ./server/relay -run TestSamples -update and review the diff", p)
		}
	}
	if *update {
		writeIndex(t, dir, names)
	}
}

func writeIndex(t *testing.T, dir string, names []string) {
	idx := map[string]map[string]map[string]string{}
	for _, n := range names {
		tool, kind, _ := strings.Cut(n, ".")
		if strings.HasPrefix(n, "errors/") {
			tool, kind = "errors", strings.TrimPrefix(n, "errors/")
		}
		if idx[tool] == nil {
			idx[tool] = map[string]map[string]string{}
		}
		idx[tool][kind] = map[string]string{"$ref": n + ".json"}
	}
	b, _ := json.MarshalIndent(map[string]any{
		"description": "Copy-ready JSON-RPC tools/call request/response pairs of the Relay rides endpoint (/mcp/rides): each tool's success and each refusal status. They replay on a server started with RELAY_SIGNING_KEYS=" + sampleKeys + " and a clock at " + dayClock.Format(time.RFC3339) + "; duration_ms is shown as 0.",
		"samples":     idx,
	}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "index.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
