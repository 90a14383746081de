package client_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/client/trident"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/faultserver"
)

// fakeClock records every wait and returns at once, so retry tests take no
// wall time. OnSleep, if set, runs before a wait returns.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	sleeps  []time.Duration
	OnSleep func()
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2025, 6, 18, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	hook := c.OnSleep
	c.mu.Unlock()
	if hook != nil {
		hook()
	}
	return ctx.Err()
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// maxJitter makes full jitter deterministic: always the ceiling.
func maxJitter(d time.Duration) time.Duration { return d }

func newClient(t *testing.T, env *faultserver.Env, clock *fakeClock, opts ...client.Option) *trident.Client {
	t.Helper()
	p := client.DefaultRetryPolicy()
	p.Jitter = maxJitter
	base := []client.Option{client.WithClock(clock), client.WithRetry(p), client.WithHTTPClient(env.HTTP.Client())}
	c, err := trident.New(env.Endpoint, append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ptr[T any](v T) *T { return &v }

var helensburghToAirport = mcptypes.EstimateFareInput{
	Pickup: "Helensburgh Central Station", Dropoff: "Glasgow Airport",
	VehicleType: ptr(mcptypes.EstimateFareInputVehicleTypeExecutive), MeetAndGreet: ptr(false),
}

// revisions runs a test against a fault server of the handshake revisions
// and against one that speaks 2026-07-28 too: the client finds out which
// with server/discover, and retries, errors and streams behave alike.
func revisions(t *testing.T, test func(t *testing.T, stateless bool)) {
	for _, stateless := range []bool{false, true} {
		name := "2025-06-18"
		if stateless {
			name = client.LatestProtocolVersion
		}
		t.Run(name, func(t *testing.T) { test(t, stateless) })
	}
}

func TestEstimateFareJSON(t *testing.T) {
	revisions(t, func(t *testing.T, stateless bool) {
		env := faultserver.Start(t, faultserver.Options{Stateless: stateless}, false)
		c := newClient(t, env, newFakeClock())
		got, err := c.EstimateFare(context.Background(), helensburghToAirport)
		if err != nil {
			t.Fatal(err)
		}
		if got.FareGBP != 62.4 || got.Rate != mcptypes.EstimateFareOutputRateDay || got.TariffVersion != "argyll-2024-04" {
			t.Errorf("EstimateFare = %+v, want the seed's sample values", got)
		}
		reqs := env.Server.Requests()
		var methods []string
		for _, r := range reqs {
			methods = append(methods, r.Method)
		}
		// The client asks once which revisions the server speaks, then
		// calls without initialize either way.
		if diff := cmp.Diff([]string{client.MethodDiscover, client.MethodToolsCall}, methods); diff != "" {
			t.Fatalf("requests (-want +got):\n%s", diff)
		}
		want := map[string]string{
			"Content-Type":         "application/json",
			"Accept":               "application/json, text/event-stream",
			"Mcp-Protocol-Version": client.DocumentedProtocolVersion,
			"Authorization":        "",
			"Mcp-Session-Id":       "",
			"Mcp-Method":           "",
			"Mcp-Name":             "",
		}
		if stateless {
			want["Mcp-Protocol-Version"], want["Mcp-Method"], want["Mcp-Name"] = client.LatestProtocolVersion, client.MethodToolsCall, mcptypes.ToolEstimateFare
		}
		for k, v := range want {
			if got := reqs[1].Header.Get(k); got != v {
				t.Errorf("header %s = %q, want %q", k, got, v)
			}
		}
		if got := c.ProtocolVersion(); got != want["Mcp-Protocol-Version"] {
			t.Errorf("ProtocolVersion() = %q, want %q", got, want["Mcp-Protocol-Version"])
		}
	})
}

func TestStreamedCallDeliversProgressThenResult(t *testing.T) {
	env := faultserver.Start(t, faultserver.Options{ProgressSteps: 3}, false)
	c := newClient(t, env, newFakeClock())
	var got []string
	out, err := c.StartBooking(context.Background(), mcptypes.StartBookingInput{
		Pickup: "Helensburgh Central Station", Dropoff: "Glasgow Airport",
		VehicleType: mcptypes.StartBookingInputVehicleTypeMpv, Passengers: ptr(int64(6)), MeetAndGreet: ptr(true),
	}, client.WithProgress(func(p client.Progress) { got = append(got, p.Message) }))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"step 1 of 3", "step 2 of 3", "step 3 of 3"}, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if out.Confirmed || !out.RequiresPassengerAction || out.Quote.FareGBP != 118 {
		t.Errorf("StartBooking = %+v, want the seed's unconfirmed sample", out)
	}
}

func TestRetries(t *testing.T) {
	httpDate := time.Date(2025, 6, 18, 12, 0, 5, 0, time.UTC).Format(http.TimeFormat) // fake clock + 5s
	tests := []struct {
		name       string
		faults     []faultserver.Fault
		wantCalls  int
		wantSleeps []time.Duration
		wantErr    bool
		check      func(*testing.T, error)
	}{
		{
			name:       "503 then success",
			faults:     []faultserver.Fault{{Status: 503, Body: "busy"}},
			wantCalls:  2,
			wantSleeps: []time.Duration{time.Second},
		},
		{
			name:       "429 with Retry-After seconds is honoured",
			faults:     []faultserver.Fault{{Status: 429, Header: map[string]string{"Retry-After": "2"}}},
			wantCalls:  2,
			wantSleeps: []time.Duration{2 * time.Second},
		},
		{
			name:       "503 with Retry-After date is honoured",
			faults:     []faultserver.Fault{{Status: 503, Header: map[string]string{"Retry-After": httpDate}}},
			wantCalls:  2,
			wantSleeps: []time.Duration{5 * time.Second},
		},
		{
			name:       "stream cut before the final frame is retried",
			faults:     []faultserver.Fault{{CutStream: true}},
			wantCalls:  2,
			wantSleeps: []time.Duration{time.Second},
		},
		{
			name:       "connection reset is retried",
			faults:     []faultserver.Fault{{Reset: true}},
			wantCalls:  2,
			wantSleeps: []time.Duration{time.Second},
		},
		{
			name:       "each of 408 425 500 502 504 is retried, backoff doubles",
			faults:     []faultserver.Fault{{Status: 408}, {Status: 504}},
			wantCalls:  3,
			wantSleeps: []time.Duration{time.Second, 2 * time.Second},
		},
		{
			name:       "three failures exhaust the attempts",
			faults:     []faultserver.Fault{{Status: 502}, {Status: 500}, {Status: 425, Body: "too early"}},
			wantCalls:  3,
			wantSleeps: []time.Duration{time.Second, 2 * time.Second},
			wantErr:    true,
			check: func(t *testing.T, err error) {
				var tr *client.TransportError
				if !errors.As(err, &tr) || tr.StatusCode != 425 || tr.Body != "too early" {
					t.Errorf("error = %v, want the last TransportError (425, body)", err)
				}
			},
		},
		{
			name:       "stream cut three times surfaces ErrStreamEnded",
			faults:     []faultserver.Fault{{CutStream: true}, {CutStream: true}, {CutStream: true}},
			wantCalls:  3,
			wantSleeps: []time.Duration{time.Second, 2 * time.Second},
			wantErr:    true,
			check: func(t *testing.T, err error) {
				if !errors.Is(err, client.ErrStreamEnded) || !client.IsRetryable(err) {
					t.Errorf("error = %v, want ErrStreamEnded, retryable", err)
				}
			},
		},
		{
			name:      "Retry-After beyond the limit is not waited for",
			faults:    []faultserver.Fault{{Status: 429, Header: map[string]string{"Retry-After": "3600"}}},
			wantCalls: 1,
			wantErr:   true,
			check: func(t *testing.T, err error) {
				var tr *client.TransportError
				if !errors.As(err, &tr) || tr.RetryAfter != time.Hour || tr.Code != errcodes.RateLimited {
					t.Errorf("error = %v, want 429 RATE_LIMITED carrying RetryAfter 1h", err)
				}
			},
		},
		{
			name:      "tool error is not retried",
			faults:    []faultserver.Fault{{ToolError: "Vehicle 'saloon' seats up to 4 passengers, but 6 were requested. Choose 'mpv' for groups over 4."}},
			wantCalls: 1,
			wantErr:   true,
			check: func(t *testing.T, err error) {
				var te *client.ToolError
				if !errors.As(err, &te) || te.Code != errcodes.CapacityExceeded || te.Result == nil || !te.Result.IsError {
					t.Errorf("error = %v, want ToolError CAPACITY_EXCEEDED with the result", err)
				}
			},
		},
		{
			name:      "-32602 is not retried",
			faults:    []faultserver.Fault{{RPCError: &faultserver.RPCError{Code: -32602, Message: "Invalid params: pickup: String must contain at least 3 character(s)"}}},
			wantCalls: 1,
			wantErr:   true,
			check: func(t *testing.T, err error) {
				var re *client.RPCError
				if !errors.As(err, &re) || re.Code != -32602 || re.Name != errcodes.InvalidArguments {
					t.Errorf("error = %v, want RPCError -32602 INVALID_ARGUMENTS", err)
				}
			},
		},
		{
			name:      "-32601 is not retried",
			faults:    []faultserver.Fault{{RPCError: &faultserver.RPCError{Code: -32601, Message: "Method not found: no tool named 'x'"}}},
			wantCalls: 1,
			wantErr:   true,
			check: func(t *testing.T, err error) {
				if client.CodeOf(err) != errcodes.MethodNotFound {
					t.Errorf("CodeOf(%v) = %q, want METHOD_NOT_FOUND", err, client.CodeOf(err))
				}
			},
		},
		{
			name:      "other 4xx are not retried",
			faults:    []faultserver.Fault{{Status: 406, Header: map[string]string{"Content-Type": "application/json"}, Body: `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Not Acceptable"}}`}},
			wantCalls: 1,
			wantErr:   true,
			check: func(t *testing.T, err error) {
				var tr *client.TransportError
				if !errors.As(err, &tr) || tr.Code != errcodes.NotAcceptable || tr.RPC == nil || tr.RPC.Code != -32000 {
					t.Errorf("error = %v, want 406 NOT_ACCEPTABLE with the JSON-RPC body", err)
				}
			},
		},
	}
	revisions(t, func(t *testing.T, stateless bool) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				env := faultserver.Start(t, faultserver.Options{Stateless: stateless}, false)
				env.Server.Enqueue(tt.faults...)
				clock := newFakeClock()
				c := newClient(t, env, clock)
				_, err := c.EstimateFare(context.Background(), helensburghToAirport, client.WithProgress(func(client.Progress) {}))
				if (err != nil) != tt.wantErr {
					t.Fatalf("error = %v, wantErr %v", err, tt.wantErr)
				}
				if tt.check != nil {
					tt.check(t, err)
				}
				if got := env.Server.Count(client.MethodToolsCall); got != tt.wantCalls {
					t.Errorf("server saw %d calls, want %d", got, tt.wantCalls)
				}
				if diff := cmp.Diff(tt.wantSleeps, clock.Sleeps()); diff != "" {
					t.Errorf("waits (-want +got):\n%s", diff)
				}
			})
		}
	})
}

func TestContextEndStopsBackoffAtOnce(t *testing.T) {
	revisions(t, testContextEndStopsBackoffAtOnce)
}

func testContextEndStopsBackoffAtOnce(t *testing.T, stateless bool) {
	env := faultserver.Start(t, faultserver.Options{Stateless: stateless}, false)
	env.Server.Enqueue(faultserver.Fault{Status: 503}, faultserver.Fault{Status: 503})
	ctx, cancel := context.WithCancel(context.Background())
	clock := newFakeClock()
	clock.OnSleep = cancel // the context ends during the first wait
	c := newClient(t, env, clock)
	_, err := c.EstimateFare(ctx, helensburghToAirport)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	var tr *client.TransportError
	if !errors.As(err, &tr) || tr.StatusCode != 503 {
		t.Errorf("error = %v, want it to carry the last 503 too", err)
	}
	if got := env.Server.Count(client.MethodToolsCall); got != 1 {
		t.Errorf("server saw %d calls, want 1", got)
	}
}

func TestFullJitterStaysUnderTheCeiling(t *testing.T) {
	env := faultserver.Start(t, faultserver.Options{}, false)
	env.Server.Enqueue(faultserver.Fault{Status: 503}, faultserver.Fault{Status: 503})
	clock := newFakeClock()
	c, err := trident.New(env.Endpoint, client.WithClock(clock)) // default, random jitter
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetServiceInfo(context.Background(), mcptypes.GetServiceInfoInput{}); err != nil {
		t.Fatal(err)
	}
	s := clock.Sleeps()
	if len(s) != 2 || s[0] < 0 || s[0] > time.Second || s[1] < 0 || s[1] > 2*time.Second {
		t.Errorf("waits = %v, want two, within [0,1s] and [0,2s]", s)
	}
}

func TestToolErrorsCarryCatalogueNames(t *testing.T) {
	env := faultserver.Start(t, faultserver.Options{}, false)
	c := newClient(t, env, newFakeClock())
	_, err := c.EstimateFare(context.Background(), mcptypes.EstimateFareInput{Pickup: "xxx", Dropoff: "Glasgow Airport"})
	var te *client.ToolError
	if !errors.As(err, &te) || te.Code != errcodes.GeocodeFailed || te.Retryable {
		t.Fatalf("error = %v, want ToolError GEOCODE_FAILED, not retryable", err)
	}
	_, err = c.StartBooking(context.Background(), mcptypes.StartBookingInput{
		Pickup: "Helensburgh Central Station", Dropoff: "Glasgow Airport",
		VehicleType: mcptypes.StartBookingInputVehicleTypeSaloon, Passengers: ptr(int64(6)),
	})
	if client.CodeOf(err) != errcodes.CapacityExceeded {
		t.Errorf("CodeOf(%v) = %q, want CAPACITY_EXCEEDED", err, client.CodeOf(err))
	}
	_, err = c.Call(context.Background(), "get_service_infoo", nil, nil)
	var re *client.RPCError
	if !errors.As(err, &re) || re.Code != -32601 || re.Message != "Method not found: no tool named 'get_service_infoo'" {
		t.Errorf("error = %v, want the seed's -32601", err)
	}
}

func TestHandshake(t *testing.T) {
	tests := []struct {
		name      string
		mode      client.Handshake
		calls     int
		forget    bool
		wantInits int
		wantErr   bool
	}{
		{name: "auto initializes when the server wants a session", mode: client.HandshakeAuto, calls: 3, wantInits: 1},
		{name: "always initializes first", mode: client.HandshakeAlways, calls: 2, wantInits: 1},
		{name: "a forgotten session is rebuilt", mode: client.HandshakeAlways, calls: 2, forget: true, wantInits: 2},
		{name: "never does not initialize", mode: client.HandshakeNever, calls: 1, wantInits: 0, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := faultserver.Start(t, faultserver.Options{RequireSession: true}, false)
			c := newClient(t, env, newFakeClock(), client.WithHandshake(tt.mode))
			for i := range tt.calls {
				if tt.forget && i == 1 {
					env.Server.ForgetSessions()
				}
				_, err := c.GetServiceInfo(context.Background(), mcptypes.GetServiceInfoInput{})
				if (err != nil) != tt.wantErr {
					t.Fatalf("call %d: error = %v, wantErr %v", i, err, tt.wantErr)
				}
			}
			if got := env.Server.Count(client.MethodInitialize); got != tt.wantInits {
				t.Errorf("initialize sent %d times, want %d", got, tt.wantInits)
			}
			if got := env.Server.Count(client.MethodInitialized); got != tt.wantInits {
				t.Errorf("notifications/initialized sent %d times, want %d", got, tt.wantInits)
			}
			if tt.wantInits > 0 && c.SessionID() == "" {
				t.Error("no session id kept after initialize")
			}
		})
	}
}

func TestListTools(t *testing.T) {
	env := faultserver.Start(t, faultserver.Options{}, false)
	c := newClient(t, env, newFakeClock())
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if diff := cmp.Diff([]string{"estimate_fare", "get_service_info", "start_booking"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
}

func TestNewRejectsBadEndpoints(t *testing.T) {
	for _, u := range []string{"", "ftp://x/mcp", "localhost:8080/mcp", "http://"} {
		if _, err := trident.New(u); err == nil {
			t.Errorf("New(%q) succeeded, want an error", u)
		}
	}
}
