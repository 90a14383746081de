package relay_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay"
)

// Hostile input over HTTP, through the host's front door as a client sends
// it: every request gets a clear answer (a refusal with its status, or the
// front door's HTTP or JSON-RPC error), the server keeps serving, and what
// it issued before the barrage still verifies after it.

// reply is what one raw POST to /mcp/rides came back as.
type reply struct {
	status int
	rpcErr *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	isError    bool
	structured json.RawMessage
	raw        []byte
}

// refusal is the status of a refused call ("" when it was no refusal).
func (r reply) refusal() string {
	var v struct {
		Status string `json:"status"`
	}
	if !r.isError || json.Unmarshal(r.structured, &v) != nil {
		return ""
	}
	return v.Status
}

func (r reply) String() string {
	if len(r.raw) > 400 {
		return fmt.Sprintf("HTTP %d %s…", r.status, r.raw[:400])
	}
	return fmt.Sprintf("HTTP %d %s", r.status, r.raw)
}

// post sends one tools/call whose arguments are raw JSON text, as bytes.
func post(t *testing.T, url string, hc *http.Client, tool string, args []byte) reply {
	t.Helper()
	var body bytes.Buffer
	body.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":`)
	body.Write(args)
	body.WriteString(`}}`)
	req, _ := http.NewRequest(http.MethodPost, url, &body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s: the server did not answer: %v", tool, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, raw: b}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		return r
	}
	var m struct {
		Error  json.RawMessage `json:"error"`
		Result *struct {
			IsError    bool            `json:"isError"`
			Structured json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: not a JSON-RPC reply: %v: %s", tool, err, b)
	}
	if m.Error != nil {
		_ = json.Unmarshal(m.Error, &r.rpcErr)
	}
	if m.Result != nil {
		r.isError, r.structured = m.Result.IsError, m.Result.Structured
	}
	return r
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hostileRelay is Relay with Trident as its priced source on an in-process
// host, a clock the test moves, and what its first search issued.
type hostileRelay struct {
	url   string
	hc    *http.Client
	clock *fakeClock
	first mcptypes.SearchRidesResult
}

func newHostileRelay(t *testing.T) *hostileRelay {
	t.Helper()
	clock := &fakeClock{t: dayClock}
	s, err := relay.New(&relay.Options{Logger: discard, Keys: mustKeys(t, "k1:"+strings.Repeat("A", 43)),
		TridentURL: startTrident(t), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	h := &hostileRelay{clock: clock}
	h.url, h.hc = hostURL(t, s)
	h.first = h.search(t)
	return h
}

var validSearch = fmt.Sprintf(`{"pickup":{"latitude":%v,"longitude":%v},"dropoff":{"latitude":%v,"longitude":%v},"party_size":2}`,
	helensburgh.Latitude, helensburgh.Longitude, glasgowAir.Latitude, glasgowAir.Longitude)

// search runs a valid search and checks it answers signed options.
func (h *hostileRelay) search(t *testing.T) mcptypes.SearchRidesResult {
	t.Helper()
	r := post(t, h.url, h.hc, mcptypes.ToolSearchRides, []byte(validSearch))
	var out mcptypes.SearchRidesResult
	if r.isError || json.Unmarshal(r.structured, &out) != nil || out.Status != "ok" || len(out.Options) == 0 {
		t.Fatalf("a valid search: %v", r)
	}
	return out
}

// stillServes checks the server answers a valid search and still honours
// the option and context it issued before the barrage.
func (h *hostileRelay) stillServes(t *testing.T) {
	t.Helper()
	h.search(t)
	args := mustJSON(t, map[string]any{"options": h.first.Options, "context": h.first.RelayContext})
	if r := post(t, h.url, h.hc, mcptypes.ToolCompareRides, args); r.isError || r.rpcErr != nil || r.status != 200 {
		t.Fatalf("compare_rides of the options issued before the barrage: %v", r)
	}
}

// want checks r is the named refusal.
func want(t *testing.T, name string, r reply, status string) {
	t.Helper()
	if got := r.refusal(); got != status {
		t.Errorf("%s: want a %s refusal, got %v", name, status, r)
	}
}

// Out-of-range, non-finite and mistyped coordinates. JSON has no NaN or
// Infinity; 1e999 and -1e400 are valid JSON numbers that overflow float64,
// which the input schema's range refuses like any other out-of-range value;
// 1e-99999999999 underflows it (the validator cannot read its exponent),
// and is refused as out of range too; 0e99999999999 is zero, but
// 0E10000000000000000000, whose exponent is beyond int64, is refused (the
// validator panicked on it).
func TestHostileCoordinates(t *testing.T) {
	h := newHostileRelay(t)
	for _, lat := range []string{"91", "-90.0000001", "1e999", "-1e400", "1e99999999999", "1e-99999999999", "-1e-99999999999e", "0E10000000000000000000", "-0e-10000000000000000000", `"56.0"`, `"NaN"`, `"Infinity"`, "null", "true", "[56]", `{}`} {
		args := strings.Replace(validSearch, fmt.Sprintf(`"latitude":%v`, helensburgh.Latitude), `"latitude":`+lat, 1)
		r := post(t, h.url, h.hc, mcptypes.ToolSearchRides, []byte(args))
		switch {
		case r.refusal() == "invalid_arguments":
		case r.rpcErr != nil && r.rpcErr.Code == -32700 && !json.Valid([]byte(lat)):
			// not JSON at all: the front door's parse error
		default:
			t.Errorf("latitude %s: want invalid_arguments, got %v", lat, r)
		}
	}
	zero := strings.Replace(validSearch, fmt.Sprintf(`"latitude":%v`, helensburgh.Latitude), `"latitude":-0e99999999999`, 1)
	if r := post(t, h.url, h.hc, mcptypes.ToolSearchRides, []byte(zero)); r.rpcErr != nil || r.isError {
		t.Errorf("latitude -0e99999999999 (zero): want a result, got %v", r)
	}
	for _, lng := range []string{"180.5", "-181", "1e308", "-1e308"} {
		args := strings.Replace(validSearch, fmt.Sprintf(`"longitude":%v`, glasgowAir.Longitude), `"longitude":`+lng, 1)
		want(t, "longitude "+lng, post(t, h.url, h.hc, mcptypes.ToolSearchRides, []byte(args)), "invalid_arguments")
	}
	h.stillServes(t)
}

// Huge options arrays in compare_rides: above the body limit the front door
// answers 413 before decoding anything; within it, the schema's maxItems
// refuses them.
func TestHostileOptionsArrays(t *testing.T) {
	h := newHostileRelay(t)
	opt := h.first.Options[0]
	many := func(n int) []mcptypes.RideOption {
		out := make([]mcptypes.RideOption, n)
		for i := range out {
			out[i] = opt
		}
		return out
	}
	big := mustJSON(t, map[string]any{"options": many(10_000), "context": h.first.RelayContext})
	if r := post(t, h.url, h.hc, mcptypes.ToolCompareRides, big); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("10 000 options (%d bytes): want 413, got %v", len(big), r)
	}
	for _, n := range []int{49, 500} {
		args := mustJSON(t, map[string]any{"options": many(n), "context": h.first.RelayContext})
		want(t, fmt.Sprintf("%d options", n), post(t, h.url, h.hc, mcptypes.ToolCompareRides, args), "invalid_arguments")
	}
	tiny := `{"options":[` + strings.Repeat(`{},`, 10_000) + `{}]}`
	want(t, "10 000 empty options", post(t, h.url, h.hc, mcptypes.ToolCompareRides, []byte(tiny)), "invalid_arguments")
	want(t, "no options", post(t, h.url, h.hc, mcptypes.ToolCompareRides, []byte(`{"options":[]}`)), "invalid_arguments")
	h.stillServes(t)
}

// Forged signatures on an option, in every tool that takes one.
func TestHostileForgedSignatures(t *testing.T) {
	h := newHostileRelay(t)
	random := make([]byte, 32)
	_, _ = rand.Read(random)
	// A signature from another key: an option a second Relay with its own
	// key issued for the same trip, under the same kid.
	other, err := relay.New(&relay.Options{Logger: discard, Keys: mustKeys(t, "k1:"+strings.Repeat("B", 43)),
		TridentURL: startTrident(t), Now: h.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	otherURL, otherHC := hostURL(t, other)
	r := post(t, otherURL, otherHC, mcptypes.ToolSearchRides, []byte(validSearch))
	var foreign mcptypes.SearchRidesResult
	if json.Unmarshal(r.structured, &foreign) != nil || len(foreign.Options) == 0 {
		t.Fatalf("the other Relay's search: %v", r)
	}
	foreignOpt := foreign.Options[0]
	foreignOpt.OptionID = h.first.Options[0].OptionID // everything else is its own

	forge := map[string]func(o *mcptypes.RideOption){
		"random bytes":    func(o *mcptypes.RideOption) { o.Verification.Signature = base64.RawURLEncoding.EncodeToString(random) },
		"not base64":      func(o *mcptypes.RideOption) { o.Verification.Signature = "!!!!" },
		"empty":           func(o *mcptypes.RideOption) { o.Verification.Signature = "" },
		"unknown kid":     func(o *mcptypes.RideOption) { o.Verification.Kid = "k9" },
		"another alg":     func(o *mcptypes.RideOption) { o.Verification.Alg = "none" },
		"another key":     func(o *mcptypes.RideOption) { *o = foreignOpt },
		"cheaper":         func(o *mcptypes.RideOption) { o.Price.AmountMinor-- },
		"signature reuse": func(o *mcptypes.RideOption) { o.Verification = h.first.Options[len(h.first.Options)-1].Verification },
	}
	for name, f := range forge {
		o := h.first.Options[0]
		if name == "signature reuse" && len(h.first.Options) < 2 {
			continue
		}
		f(&o)
		ctx := h.first.RelayContext
		for _, tc := range []struct {
			tool string
			args any
		}{
			{mcptypes.ToolCompareRides, map[string]any{"options": []any{o}, "context": ctx}},
			{mcptypes.ToolResolveRide, map[string]any{"option": o, "context": ctx}},
			{mcptypes.ToolGetRideBookingHandoff, map[string]any{"option": o, "context": ctx}},
		} {
			r := post(t, h.url, h.hc, tc.tool, mustJSON(t, tc.args))
			// An empty signature or an unknown alg fails the input schema first.
			if s := r.refusal(); s != "invalid_option" && (s != "invalid_arguments" || (name != "empty" && name != "another alg")) {
				t.Errorf("%s, %s: want invalid_option, got %v", tc.tool, name, r)
			}
		}
	}
	// A forged context is invalid_context, whatever it carries.
	ctx := h.first.RelayContext
	ctx.Verification.Signature = base64.RawURLEncoding.EncodeToString(random)
	want(t, "forged context", post(t, h.url, h.hc, mcptypes.ToolCompareRides, mustJSON(t, map[string]any{"options": h.first.Options, "context": ctx})), "invalid_context")
	want(t, "the other Relay's context", post(t, h.url, h.hc, mcptypes.ToolSearchRides,
		[]byte(strings.TrimSuffix(validSearch, "}")+`,"context":`+string(mustJSON(t, foreign.RelayContext))+"}")), "invalid_context")
	h.stillServes(t)
}

// Replayed options: an option presented under another journey or session
// than the one it was issued to, or after it expired.
func TestHostileReplayedOptions(t *testing.T) {
	h := newHostileRelay(t)
	second := h.search(t) // a fresh session and journey
	// A later search in the first journey: the same session and journey, a
	// new intent. The option stays valid there (it is bound to the journey).
	again := post(t, h.url, h.hc, mcptypes.ToolSearchRides,
		[]byte(strings.TrimSuffix(validSearch, "}")+`,"context":`+string(mustJSON(t, h.first.RelayContext))+"}"))
	var same mcptypes.SearchRidesResult
	if json.Unmarshal(again.structured, &same) != nil || same.RelayContext.JourneyID != h.first.RelayContext.JourneyID {
		t.Fatalf("a search in the first journey: %v", again)
	}
	o := h.first.Options[0]
	for _, tool := range []string{mcptypes.ToolResolveRide, mcptypes.ToolGetRideBookingHandoff} {
		want(t, tool+" under another journey and session", post(t, h.url, h.hc, tool, mustJSON(t, map[string]any{"option": o, "context": second.RelayContext})), "invalid_option")
		// Another session's context with the first journey's id forged in.
		forged := second.RelayContext
		forged.JourneyID = h.first.RelayContext.JourneyID
		want(t, tool+" under a spliced context", post(t, h.url, h.hc, tool, mustJSON(t, map[string]any{"option": o, "context": forged})), "invalid_context")
		want(t, tool+" without a context", post(t, h.url, h.hc, tool, mustJSON(t, map[string]any{"option": o})), "invalid_option")
	}
	want(t, "compare under another journey", post(t, h.url, h.hc, mcptypes.ToolCompareRides,
		mustJSON(t, map[string]any{"options": []any{o, second.Options[0]}, "context": second.RelayContext})), "invalid_option")
	if r := post(t, h.url, h.hc, mcptypes.ToolGetRideBookingHandoff, mustJSON(t, map[string]any{"option": o, "context": same.RelayContext})); r.isError {
		t.Errorf("the option in its own journey under a later context: %v", r)
	}
	h.clock.Add(relay.MaxOptionTTL + time.Second)
	for _, tool := range []string{mcptypes.ToolResolveRide, mcptypes.ToolGetRideBookingHandoff} {
		want(t, tool+" after expiry", post(t, h.url, h.hc, tool, mustJSON(t, map[string]any{"option": o, "context": h.first.RelayContext})), "invalid_option")
	}
	want(t, "compare after expiry", post(t, h.url, h.hc, mcptypes.ToolCompareRides,
		mustJSON(t, map[string]any{"options": h.first.Options, "context": h.first.RelayContext})), "invalid_option")
	h.search(t) // still serving, with fresh options
}

// Deeply nested context and journey_context: 10 000 levels and more. The
// front door's JSON decoding bounds nesting; below its bound the schema
// refuses the shape.
func TestHostileNesting(t *testing.T) {
	h := newHostileRelay(t)
	nest := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	arr := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, depth := range []int{10, 1000, 10_000, 100_000} {
		for _, field := range []string{"context", "journey_context"} {
			for kind, v := range map[string]string{"objects": nest(depth), "arrays": arr(depth)} {
				args := strings.TrimSuffix(validSearch, "}") + `,"` + field + `":` + v + "}"
				r := post(t, h.url, h.hc, mcptypes.ToolSearchRides, []byte(args))
				switch s := r.refusal(); {
				case depth < 10_000 && (s == "invalid_arguments" || s == "invalid_context"):
				case depth >= 10_000 && r.status == http.StatusBadRequest && r.rpcErr != nil && r.rpcErr.Code == -32700 && strings.Contains(r.rpcErr.Message, "max depth"):
					// encoding/json's nesting bound (10 000), answered by the front door
				default:
					t.Errorf("%s nested %d levels (%s): want a refusal or a protocol error, got %v", field, depth, kind, r)
				}
			}
		}
		// continue_journey takes journey_context too.
		args := `{"journey_id":"` + h.first.RelayContext.JourneyID + `","to_connector":"x","context":` + string(mustJSON(t, h.first.RelayContext)) + `,"journey_context":` + nest(depth) + "}"
		r := post(t, h.url, h.hc, mcptypes.ToolContinueJourney, []byte(args))
		if s := r.refusal(); s != "invalid_arguments" && s != "invalid_context" && (r.rpcErr == nil || r.rpcErr.Code != -32700) {
			t.Errorf("continue_journey with journey_context nested %d levels: %v", depth, r)
		}
	}
	h.stillServes(t)
}
