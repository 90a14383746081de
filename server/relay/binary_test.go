package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/server/relay"

	relayclient "github.com/tridenttaxis/trident-mcp/client/relay"
	tridentclient "github.com/tridenttaxis/trident-mcp/client/trident"
	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	tridenttypes "github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// TestTheBinary is the done-when check against the real server
// binary, started as `make run` starts it (no credentials, no Relay
// configuration; the fare clock on a weekday morning): Relay at /mcp/rides
// beside Trident's /mcp, and Trident as Relay's source through its own
// endpoint over HTTP.
func TestTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the server binary")
	}
	base := testserver.Start(t, testserver.Build(t), testserver.FreeAddr(t))
	ctx := context.Background()
	rc, err := relayclient.New(base + "/mcp/rides")
	if err != nil {
		t.Fatal(err)
	}
	tc, err := tridentclient.New(base + "/mcp")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("New York: handoffs only", func(t *testing.T) {
		out, err := rc.SearchRides(ctx, mcptypes.SearchRidesInput{Pickup: &jfk, Dropoff: &timesSquare, DestinationCity: ptr("New York"), PartySize: ptr(int64(2))})
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != "handoff_available" || len(out.Options) != 0 {
			t.Fatalf("status %s with %d options", out.Status, len(out.Options))
		}
		kinds := map[string]mcptypes.BrowserHandoff{}
		for _, h := range out.BrowserHandoffs {
			kinds[h.Provider] = h
		}
		for _, id := range []string{"uber", "lyft"} {
			h := kinds[id]
			if !h.ParametersApplied || !strings.Contains(h.URL, "40.6413") || !strings.Contains(h.URL, "-73.9855") {
				t.Errorf("%s: %+v", id, h)
			}
		}
		for _, id := range []string{"trident", "gett", "bolt", "freenow"} {
			if h, ok := kinds[id]; ok {
				t.Errorf("%s does not operate in New York, yet its handoff is offered: %+v", id, h)
			}
		}
	})

	t.Run("Helensburgh to Glasgow Airport: Trident's options", func(t *testing.T) {
		out, err := rc.SearchRides(ctx, mcptypes.SearchRidesInput{Pickup: &helensburgh, Dropoff: &glasgowAir, PartySize: ptr(int64(2))})
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != "ok" || len(out.Options) != 6 {
			t.Fatalf("status %s with %d options: %+v", out.Status, len(out.Options), out.Errors)
		}
		for _, o := range out.Options {
			vt := tridenttypes.EstimateFareInputVehicleType(o.Product.ID)
			q, err := tc.EstimateFare(ctx, tridenttypes.EstimateFareInput{Pickup: pair(helensburgh), Dropoff: pair(glasgowAir), VehicleType: &vt})
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(q.FareGBP*100 + 0.5); o.Price.AmountMinor != want || o.Price.Basis != "fixed" || o.Price.Currency != "GBP" {
				t.Errorf("%s: %+v, estimate_fare says %v GBP", o.Product.ID, o.Price, q.FareGBP)
			}
		}
		exec := out.Options[2]
		if exec.Product.ID != "executive" || exec.Price.AmountMinor != 6240 {
			t.Errorf("executive by day: %+v", exec)
		}
		h, err := rc.GetRideBookingHandoff(ctx, mcptypes.GetRideBookingHandoffInput{Option: &out.Options[0], Context: &out.RelayContext})
		if err != nil {
			t.Fatal(err)
		}
		sb, err := tc.StartBooking(ctx, tridenttypes.StartBookingInput{Pickup: pair(helensburgh), Dropoff: pair(glasgowAir), VehicleType: "saloon", Passengers: ptr(int64(2))})
		if err != nil {
			t.Fatal(err)
		}
		if h.URL == nil || *h.URL != sb.BookingURL || !h.SelectionPreserved {
			t.Errorf("the saloon's handoff %+v, want Trident's prefilled link %s", h, sb.BookingURL)
		}
	})

	t.Run("its own protected-resource metadata", func(t *testing.T) {
		resp, err := http.Get(base + "/.well-known/oauth-protected-resource/mcp/rides")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var doc struct {
			Resource string `json:"resource"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || resp.StatusCode != 200 || doc.Resource != base+"/mcp/rides" {
			t.Errorf("HTTP %d, resource %q: %v", resp.StatusCode, doc.Resource, err)
		}
	})
}

// The documents around /mcp/rides: its page, its schemas byte for byte, its
// samples, beside Trident's.
func TestDocuments(t *testing.T) {
	s, _ := newRelay(t, relay.Options{})
	url, hc := hostURL(t, s)
	base := strings.TrimSuffix(url, relay.Path)
	get := func(p string) (int, string, []byte) {
		resp, err := hc.Get(base + p)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), b
	}
	// Relay's section of the shared page, and its old page's URL leading there.
	code, ct, b := get("/mcp-docs")
	for _, want := range []string{`id="relay"`, `data-console="relay"`, `id="relay-tool-get_ride_booking_handoff"`, "RELAY_INVALID_OPTION", "/samples/rides/search_rides.success.json"} {
		if code != 200 || !strings.HasPrefix(ct, "text/html") || !strings.Contains(string(b), want) {
			t.Errorf("/mcp-docs: %d %s, lacks %s", code, ct, want)
		}
	}
	noFollow := *hc
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := noFollow.Get(base + relay.DocsPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != relay.DocsAnchor {
		t.Errorf("%s: %d Location %q, want 301 to %s", relay.DocsPath, resp.StatusCode, resp.Header.Get("Location"), relay.DocsAnchor)
	}
	want, _ := relaycontracts.Set.ReadFile("schemas/search_rides.input.json")
	if code, _, b := get("/mcp-schemas/rides/search_rides.input.json"); code != 200 || !bytes.Equal(b, want) {
		t.Errorf("schema: %d, byte for byte %v", code, bytes.Equal(b, want))
	}
	for _, p := range []string{"/mcp-schemas/rides/index.json", "/mcp-schemas/rides/mcp-tools.d.ts", "/samples/rides/index.json", "/samples/rides/errors/invalid_option.json"} {
		if code, _, _ := get(p); code != 200 {
			t.Errorf("%s: %d", p, code)
		}
	}
	for _, p := range []string{"/mcp-schemas/rides/nope.json", "/samples/rides/../tools.json", "/samples/rides/providers.schema.json"} {
		if code, _, _ := get(p); code != 404 {
			t.Errorf("%s: %d, want 404", p, code)
		}
	}
}

// The binary refuses to start with an option lifetime above five minutes,
// or signing keys it cannot read, naming the variable.
func TestTheBinaryRefusesBadRelayConfiguration(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary")
	}
	bin := testserver.Build(t)
	for _, kv := range []string{"RELAY_OPTION_TTL=6m", "RELAY_SIGNING_KEYS=nokid", "RELAY_PROVIDERS_FILE=/nonexistent/providers.json"} {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "ADDR="+testserver.FreeAddr(t), kv)
		out, err := cmd.CombinedOutput()
		name, _, _ := strings.Cut(kv, "=")
		if err == nil || !strings.Contains(string(out), name) {
			t.Errorf("%s: err %v, output %s", kv, err, out)
		}
	}
}
