package geo

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// nominatimServer replays fixtures by query text and checks that each
// request is a well-formed /search call.
func nominatimServer(t *testing.T, byQuery map[string]fixture) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		q := r.URL.Query()
		want := map[string]string{"format": "jsonv2", "countrycodes": "gb", "limit": "1", "addressdetails": "1"}
		for k, v := range want {
			if got := q.Get(k); got != v {
				t.Errorf("request %s: %s=%q, want %q", r.URL, k, got, v)
			}
		}
		if r.URL.Path != "/search" {
			t.Errorf("path %q, want /search", r.URL.Path)
		}
		if ua := r.Header.Get("User-Agent"); ua != "trident-test/1.0" {
			t.Errorf("User-Agent %q", ua)
		}
		f, ok := byQuery[q.Get("q")]
		if !ok {
			t.Errorf("unexpected query %q", q.Get("q"))
			f = fixture{status: 200, file: "nominatim/empty.json"}
		}
		f.serve(t, w)
	}))
	t.Cleanup(ts.Close)
	return ts, &calls
}

func TestNominatimGeocode(t *testing.T) {
	ts, _ := nominatimServer(t, map[string]fixture{
		"Glasgow Airport":                 {status: 200, file: "nominatim/glasgow_airport.json"},
		"Helensburgh Central Station":     {status: 200, file: "nominatim/helensburgh_central.json"},
		"12 Sinclair Street, Helensburgh": {status: 200, file: "nominatim/sinclair_street.json"},
		"Dumbarton":                       {status: 200, file: "nominatim/dumbarton.json"},
	})
	n := NewNominatim(ts.URL+"/", WithUserAgent("trident-test/1.0"), WithMinInterval(0))
	tests := []struct {
		query string
		want  Place
	}{
		{"Glasgow Airport", Place{Name: "Glasgow Airport", Lat: 55.8687465, Lon: -4.4331698, Kind: KindAirport, IATA: "GLA", Postcode: "PA3 2SW"}},
		{"  Helensburgh Central Station ", Place{Name: "Helensburgh Central", Lat: 56.0041652, Lon: -4.7325324, Kind: KindStation, Postcode: "G84 7HL"}},
		{"12 Sinclair Street, Helensburgh", Place{Name: "12 Sinclair Street", Lat: 56.0061939, Lon: -4.7336015, Kind: KindAddress, Postcode: "G84 8TU"}},
		{"Dumbarton", Place{Name: "Dumbarton", Lat: 55.9433645, Lon: -4.5678521, Kind: KindTown}},
	}
	for _, tt := range tests {
		got, err := n.Geocode(context.Background(), tt.query)
		if err != nil {
			t.Errorf("Geocode(%q): %v", tt.query, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Geocode(%q) (-want +got):\n%s", tt.query, diff)
		}
	}
}

func TestNominatimFailures(t *testing.T) {
	ts, calls := nominatimServer(t, map[string]fixture{
		"Nowhere Lane":     {status: 200, file: "nominatim/empty.json"},
		"Bad Request":      {status: 400, file: "nominatim/error_400.json"},
		"Overloaded":       {status: 503, file: "nominatim/overloaded.html", ctype: "text/html"},
		"Proxy Page":       {status: 200, file: "nominatim/overloaded.html", ctype: "text/html"},
		"Broken Coords":    {status: 200, file: "nominatim/bad_coordinates.json"},
		"Empty Body 200":   {status: 200},
		"Server Error 500": {status: 500},
	})
	// No breaker: these replies would open it (guard_test.go tests that).
	n := NewNominatim(ts.URL, WithUserAgent("trident-test/1.0"), WithMinInterval(0), WithBreaker(0, 0))
	tests := []struct {
		query      string
		want       error
		wantStatus int
	}{
		{"Nowhere Lane", ErrNoMatch, 200},
		{"Bad Request", ErrUnavailable, 400},
		{"Overloaded", ErrUnavailable, 503},
		{"Proxy Page", ErrUnavailable, 200},
		{"Broken Coords", ErrUnavailable, 200},
		{"Empty Body 200", ErrUnavailable, 200},
		{"Server Error 500", ErrUnavailable, 500},
	}
	for _, tt := range tests {
		_, err := n.Geocode(context.Background(), tt.query)
		if !errors.Is(err, tt.want) {
			t.Errorf("Geocode(%q) = %v, want %v", tt.query, err, tt.want)
			continue
		}
		var be *BackendError
		if !errors.As(err, &be) || be.StatusCode != tt.wantStatus || be.Backend != "nominatim" {
			t.Errorf("Geocode(%q): BackendError %+v, want status %d", tt.query, be, tt.wantStatus)
		}
	}
	if got := calls.Load(); got != int32(len(tests)) {
		t.Errorf("server saw %d calls, want %d", got, len(tests))
	}
}

func TestNominatimScreensJunkWithoutCalling(t *testing.T) {
	ts, calls := nominatimServer(t, nil)
	n := NewNominatim(ts.URL, WithUserAgent("trident-test/1.0"))
	for _, q := range []string{"", "   ", "123 Main St", "TBD", "Paris, France", "Times Square, New York"} {
		if _, err := n.Geocode(context.Background(), q); !errors.Is(err, ErrNoMatch) {
			t.Errorf("Geocode(%q) = %v, want ErrNoMatch", q, err)
		}
	}
	if got := calls.Load(); got != 0 {
		t.Errorf("junk reached the server %d times", got)
	}
}

func TestNominatimTimeout(t *testing.T) {
	ts := blockingServer(t)
	n := NewNominatim(ts.URL, WithTimeout(50*time.Millisecond))
	_, err := n.Geocode(context.Background(), "Glasgow Airport")
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Geocode against a hung server = %v, want ErrUnavailable wrapping DeadlineExceeded", err)
	}
}

func TestNominatimCallerCancel(t *testing.T) {
	ts := blockingServer(t)
	n := NewNominatim(ts.URL, WithTimeout(time.Minute)) // the caller's context must win
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := n.Geocode(ctx, "Glasgow Airport")
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Geocode with cancelled ctx = %v, want ErrUnavailable wrapping Canceled", err)
	}
}

func TestNominatimUnreachable(t *testing.T) {
	n := NewNominatim(closedServerURL(t))
	_, err := n.Geocode(context.Background(), "Glasgow Airport")
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Geocode against a closed port = %v, want ErrUnavailable", err)
	}
}

func TestNominatimKind(t *testing.T) {
	tests := []struct {
		category, typ, addresstype string
		want                       Kind
	}{
		{"aeroway", "aerodrome", "aeroway", KindAirport},
		{"railway", "station", "railway", KindStation},
		{"public_transport", "station", "public_transport", KindStation},
		{"amenity", "ferry_terminal", "amenity", KindFerry},
		{"amenity", "hospital", "amenity", KindHospital},
		{"place", "postcode", "postcode", KindPostcode},
		{"place", "village", "village", KindTown},
		{"boundary", "administrative", "town", KindTown},
		{"highway", "residential", "road", KindAddress},
		{"place", "house", "place", KindAddress},
		{"tourism", "museum", "tourism", KindLandmark},
		{"historic", "castle", "historic", KindLandmark},
	}
	for _, tt := range tests {
		if got := nominatimKind(nominatimPlace{Category: tt.category, Type: tt.typ, AddressType: tt.addresstype}); got != tt.want {
			t.Errorf("%s/%s: %q, want %q", tt.category, tt.typ, got, tt.want)
		}
	}
	// The older format=json calls the category "class".
	if got := nominatimKind(nominatimPlace{Class: "aeroway", Type: "aerodrome"}); got != KindAirport {
		t.Errorf("class=aeroway: %q", got)
	}
}

func TestNominatimMinInterval(t *testing.T) {
	ts, calls := nominatimServer(t, map[string]fixture{"Dumbarton": {status: 200, file: "nominatim/dumbarton.json"}})
	n := NewNominatim(ts.URL, WithUserAgent("trident-test/1.0"), WithMinInterval(time.Hour), WithCache(0, 0))
	if _, err := n.Geocode(context.Background(), "Dumbarton"); err != nil {
		t.Fatalf("first call: %v", err)
	}
	// The second call would wait an hour, longer than its timeout, so the
	// limiter refuses at once instead of sleeping.
	if _, err := n.Geocode(context.Background(), "Dumbarton"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("second call = %v, want ErrUnavailable", err)
	}
	if s := n.Stats(); s.Refused != 1 || s.Requests != 1 {
		t.Errorf("stats %+v, want 1 request and 1 refusal", s)
	}
	if got := calls.Load(); got != 1 {
		t.Errorf("server saw %d calls, want 1", got)
	}
}
