package relay_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources/uber"
)

func TestOptionTTLAboveFiveMinutesIsRefused(t *testing.T) {
	for _, ttl := range []string{"5m1s", "1h", "-1s"} {
		d, _ := time.ParseDuration(ttl)
		if _, err := relay.New(&relay.Options{OptionTTL: d, Logger: discard}); err == nil || !strings.Contains(err.Error(), "RELAY_OPTION_TTL") {
			t.Errorf("TTL %s: err = %v", ttl, err)
		}
	}
	ep, err := relay.New(&relay.Options{OptionTTL: relay.MaxOptionTTL, Logger: discard})
	if err != nil {
		t.Fatalf("5m: %v", err)
	}
	ep.Close()
}

// A setting New cannot use stops it, naming the setting, with nothing left
// open.
func TestBadOptionsAreRefused(t *testing.T) {
	for name, tc := range map[string]struct {
		o    relay.Options
		want string
	}{
		"Trident URL not http":      {relay.Options{TridentURL: "ftp://x"}, "RELAY_TRIDENT_URL"},
		"providers file missing":    {relay.Options{ProvidersFile: filepath.Join(t.TempDir(), "none.json")}, "RELAY_PROVIDERS_FILE"},
		"Uber URL not absolute":     {relay.Options{Uber: uber.Config{BaseURL: "api.uber.com", AccessToken: "t"}}, "UBER_API_URL"},
		"a source for a handoff id": {relay.Options{Sources: map[string]sources.Source{"bolt": &fakeSource{}}}, `"bolt" is not an api provider`},
		"a database it cannot open": {relay.Options{DatabaseURL: "mysql://db/relay"}, "RELAY_DATABASE_URL"},
	} {
		tc.o.Logger = discard
		if _, err := relay.New(&tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", name, err, tc.want)
		}
	}
}

// Without TridentURL Trident is no source (not_eligible, never called);
// with it, each call to Trident carries what Options give it: Relay's own
// client-credentials token for Trident's resource, and the host's internal
// token. Relay never forwards anything of its caller's.
func TestTridentOptions(t *testing.T) {
	_, c := newRelay(t, relay.Options{})
	if st := statusOf(search(t, c, map[string]any{"pickup": helensburgh, "dropoff": glasgowAir}), "trident"); st.Status != "not_eligible" {
		t.Errorf("without TridentURL: trident %+v, want not_eligible", st)
	}

	issuer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, secret, _ := r.BasicAuth()
		r.ParseForm()
		if id != "relay" || secret != "s3cret" || r.Form.Get("resource") != "https://rides.example/mcp" {
			http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token":"relay-token","token_type":"bearer","expires_in":3600}`)
	}))
	t.Cleanup(issuer.Close)
	var (
		mu   sync.Mutex
		seen []http.Header
	)
	trident := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	}))
	t.Cleanup(trident.Close)
	_, c = newRelay(t, relay.Options{
		TridentURL:           trident.URL + "/mcp",
		TridentCredentials:   &sources.TridentCredentials{ClientID: "relay", ClientSecret: "s3cret", TokenURL: issuer.URL, Resource: "https://rides.example/mcp"},
		TridentInternalToken: "host-secret",
	})
	out := search(t, c, map[string]any{"pickup": helensburgh, "dropoff": glasgowAir, "party_size": 2})
	if st := statusOf(out, "trident"); st.Status != "failed" || len(out.Errors) != 1 || out.Errors[0].Code != mcptypes.ProviderErrorCodeUpstreamError {
		t.Errorf("Trident answering 503: trident %+v, errors %+v; want failed, upstream_error", st, out.Errors)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("Trident was never called")
	}
	for _, h := range seen {
		if h.Get("Authorization") != "Bearer relay-token" || h.Get(mcphttp.InternalCallerHeader) != "host-secret" {
			t.Errorf("a call to Trident with Authorization %q, %s %q; want Relay's token and the host's internal token",
				h.Get("Authorization"), mcphttp.InternalCallerHeader, h.Get(mcphttp.InternalCallerHeader))
		}
	}
}

// A store New opens from DatabaseURL is the endpoint's: closed with it,
// and what it kept is there for the next endpoint on the same URL.
func TestDatabaseURL(t *testing.T) {
	url := "sqlite:" + filepath.Join(t.TempDir(), "relay.db")
	keys := mustKeys(t, "k1:"+strings.Repeat("A", 43))
	first := mustRelay(t, relay.Options{DatabaseURL: url, Keys: keys})
	rc := search(t, serve(t, first), map[string]any{"destination_city": "Glasgow"}).RelayContext
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := first.Ready(); err == nil {
		t.Error("the store is still open after Close")
	}
	again := serve(t, mustRelay(t, relay.Options{DatabaseURL: url, Keys: keys}))
	out := decodeInto[mcptypes.ContinueJourneyResult](t, call(t, again, mcptypes.ToolContinueJourney, map[string]any{"journey_id": rc.JourneyID, "context": rc, "to_connector": "stays"}, false))
	if out.ContinuationContext.DestinationCity == nil || *out.ContinuationContext.DestinationCity != "Glasgow" {
		t.Errorf("the journey on a second endpoint over the same database: %+v", out)
	}
}
