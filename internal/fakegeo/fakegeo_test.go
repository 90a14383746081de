package fakegeo_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/internal/fakegeo"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

// recorded reads a recorded reply of the real engine from server/trident/geo's
// testdata.
func recorded(t *testing.T, name string) any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "server", "trident", "geo", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func get(t *testing.T, u string) (*http.Response, []byte, error) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func keys(v any) []string {
	m, _ := v.(map[string]any)
	return slices.Sorted(maps.Keys(m))
}

// TestHealthyRepliesHaveTheRecordedShape: the fake's replies carry the
// fields of the real engines' recorded replies, so that what passes against
// the fake passes against the engine.
func TestHealthyRepliesHaveTheRecordedShape(t *testing.T) {
	nom := fakegeo.NewNominatim()
	defer nom.Close()
	_, body, err := get(t, nom.URL+"/search?q=Glasgow+Airport&format=jsonv2&limit=1")
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	if err := json.Unmarshal(body, &got); err != nil || len(got) != 1 {
		t.Fatalf("reply %s: %v", body, err)
	}
	want := recorded(t, "nominatim/glasgow_airport.json").([]any)
	if g, w := keys(got[0]), keys(want[0]); !slices.Equal(g, w) {
		t.Errorf("Nominatim place fields %v, recorded %v", g, w)
	}

	osrm := fakegeo.NewOSRM()
	defer osrm.Close()
	_, body, err = get(t, osrm.URL+"/route/v1/driving/-4.732530,56.004160;-4.433060,55.871900?overview=false")
	if err != nil {
		t.Fatal(err)
	}
	var route map[string]any
	if err := json.Unmarshal(body, &route); err != nil {
		t.Fatalf("reply %s: %v", body, err)
	}
	rec := recorded(t, "osrm/ok.json").(map[string]any)
	if g, w := keys(route), keys(rec); !slices.Equal(g, w) {
		t.Errorf("OSRM reply fields %v, recorded %v", g, w)
	}
	gr, wr := route["routes"].([]any), rec["routes"].([]any)
	if len(gr) != 1 || !slices.Equal(keys(gr[0]), keys(wr[0])) {
		t.Errorf("OSRM route fields %v, recorded %v", gr, keys(wr[0]))
	}
	gw, ww := route["waypoints"].([]any), rec["waypoints"].([]any)
	if len(gw) != 2 || !slices.Equal(keys(gw[0]), keys(ww[0])) {
		t.Errorf("OSRM waypoint fields %v, recorded %v", gw, keys(ww[0]))
	}
}

// TestClientsReadTheFake: server/trident/geo's clients understand the healthy fake.
func TestClientsReadTheFake(t *testing.T) {
	nom, osrm := fakegeo.NewNominatim(), fakegeo.NewOSRM()
	defer nom.Close()
	defer osrm.Close()
	n := geo.NewNominatim(nom.URL, geo.WithMinInterval(0))
	gla, err := n.Geocode(context.Background(), "Glasgow Airport")
	if err != nil || gla.Kind != geo.KindAirport || gla.IATA != "GLA" || gla.Postcode != "PA3 2SW" {
		t.Fatalf("Glasgow Airport = %+v, %v", gla, err)
	}
	addr, err := n.Geocode(context.Background(), "12 Sinclair Street, Helensburgh")
	if err != nil || addr.Kind != geo.KindAddress || addr.Name != "12 Sinclair Street" {
		t.Fatalf("a street address = %+v, %v", addr, err)
	}
	again, _ := n.Geocode(context.Background(), "12 sinclair street, helensburgh")
	if again.Lat != addr.Lat || again.Lon != addr.Lon {
		t.Errorf("the same address in other case moved: %+v vs %+v", again, addr)
	}
	r, err := geo.NewOSRM(osrm.URL).Route(context.Background(), addr, gla)
	straight := geo.DistanceMeters(addr, gla)
	if err != nil || r.DistanceMeters < 1.29*straight || r.DistanceMeters > 1.31*straight || r.DurationSeconds <= 0 {
		t.Fatalf("route = %+v, %v (straight line %.0f m)", r, err, straight)
	}
	if got := nom.UserAgents(); got[geo.DefaultUserAgent] != 3 || len(got) != 1 {
		t.Errorf("User-Agents seen: %v", got)
	}
}

func TestFaultReplies(t *testing.T) {
	s := fakegeo.NewNominatim()
	defer s.Close()
	u := s.URL + "/search?q=Dumbarton&format=jsonv2"

	s.SetFault(fakegeo.TooManyRequests)
	resp, _, err := get(t, u)
	if err != nil || resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Errorf("429: %v %v", resp, err)
	}
	s.SetFault(fakegeo.Unavailable)
	if resp, _, err := get(t, u); err != nil || resp.StatusCode != 503 || resp.Header.Get("Content-Type") != "text/html" {
		t.Errorf("503: %v %v", resp, err)
	}
	s.SetFault(fakegeo.Reset)
	if _, _, err := get(t, u); err == nil {
		t.Error("reset: the request succeeded")
	}
	s.SetFault(fakegeo.Truncated)
	if _, _, err := get(t, u); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated: %v, want unexpected EOF", err)
	}
	for _, f := range []fakegeo.Fault{fakegeo.Malformed, fakegeo.DeepNesting, fakegeo.Huge} {
		s.SetFault(f)
		_, body, err := get(t, u)
		var v any
		if err != nil || json.Unmarshal(body, &v) == nil && len(body) < 1<<20 {
			t.Errorf("%s: %d bytes that decode, %v", f, len(body), err)
		}
	}
	s.SetFault(fakegeo.Slow)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if _, err := http.DefaultClient.Do(req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("slow: %v, want the client's deadline", err)
	}
	s.SetFault(fakegeo.Healthy)
	if resp, _, err := get(t, u); err != nil || resp.StatusCode != 200 {
		t.Errorf("healed: %v %v", resp, err)
	}
	if got := s.Requests(); got != 10 {
		t.Errorf("Requests() = %d, want 10", got)
	}
}
