package trident_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/tridenttaxis/trident-mcp/contracts"
	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	kit "github.com/tridenttaxis/trident-mcp/server/mcphttp/mcphttptest"
	"github.com/tridenttaxis/trident-mcp/server/trident"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

// The front door's fast path must answer as the go-sdk does, byte for byte
// (server/mcphttp's differential tests hold it to that for any endpoint).
// Here Trident's own answers go both ways: its samples, and a case for each
// row of its own error catalogue.

// tridentPaths is the Trident endpoint's front door built both ways.
func tridentPaths(t testing.TB, o *trident.Options) *kit.Paths {
	t.Helper()
	cfg, _ := kit.Config(t)
	return kit.NewPaths(t, endpoint(t, o), cfg)
}

// TestSamplesBothPaths sends every sample of contracts/trident/samples
// (the OAuth one is the front door's 401: server/mcphttp) both ways; the
// tools/call samples Trident answers itself take the fast path.
func TestSamplesBothPaths(t *testing.T) {
	samples, err := tridentcontracts.Set.Samples()
	if err != nil {
		t.Fatal(err)
	}
	p := tridentPaths(t, nil)
	for _, s := range samples {
		if s.Mode == "oauth" {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			header := kit.Headers()
			for k, v := range s.HTTP.RequestHeaders {
				header.Set(k, v)
			}
			fast := p.Compare(t, header, string(s.Request))
			wantFast := s.HTTP.Status == 200 && bytes.Contains(s.Request, []byte(`"tools/call"`)) &&
				s.ErrorCode != string(errcodes.MethodNotFound) // unknown tools are the front door's
			if fast != wantFast {
				t.Errorf("fast path taken = %v, want %v", fast, wantFast)
			}
		})
	}
}

// TestOwnRefusalsBothPaths sends a case for each row of Trident's own
// catalogue (contracts/trident/errors.json) both ways; a row without a
// case fails, so a new row needs one.
func TestOwnRefusalsBothPaths(t *testing.T) {
	sampleCall := kit.CallBody("7", "estimate_fare", `{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive"}`)
	down := &fakeGeo{geoErr: fmt.Errorf("nominatim: %w", geo.ErrUnavailable)}
	cases := map[errcodes.Code]struct {
		opts *trident.Options
		body string
	}{
		errcodes.GeocodeFailed:      {body: kit.CallBody("2", "estimate_fare", `{"pickup":"xxx","dropoff":"Glasgow Airport"}`)},
		errcodes.RoutingUnavailable: {opts: &trident.Options{Geocoder: down, Router: down}, body: sampleCall},
		errcodes.CapacityExceeded: {body: kit.CallBody(`"c"`, "start_booking",
			`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"saloon","passengers":9}`)},
	}
	all, err := contracts.Catalogue(tridentcontracts.Set)
	if err != nil {
		t.Fatal(err)
	}
	shared, err := contracts.LoadErrors()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all[len(shared):] { // the shared rows first, then Trident's
		c, ok := cases[errcodes.Code(e.Name)]
		if !ok {
			t.Errorf("no differential case for Trident's catalogue code %s: add one", e.Name)
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			if !tridentPaths(t, c.opts).Compare(t, kit.Headers(), c.body) {
				t.Error("the fast path did not answer Trident's refusal")
			}
		})
	}
}
