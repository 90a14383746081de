package registry_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
)

func f(v float64) *float64 { return &v }

func TestBoxAreas(t *testing.T) {
	p := registry.Provider{Coverage: &registry.Coverage{Source: "https://example.com/cities", Areas: []registry.Area{
		{Name: "United Kingdom", South: f(49.8), West: f(-8.7), North: f(60.9), East: f(1.8)},
		{Name: "Across the antimeridian", South: f(-20), West: f(170), North: f(-10), East: f(-170)},
	}}}
	for _, tc := range []struct {
		c    mcptypes.Coordinates
		want bool
	}{
		{helensburgh, true},
		{jfk, false},
		{mcptypes.Coordinates{Latitude: -15, Longitude: 175}, true},
		{mcptypes.Coordinates{Latitude: -15, Longitude: -175}, true},
		{mcptypes.Coordinates{Latitude: -15, Longitude: 0}, false},
	} {
		if got := p.Covers(&tc.c, nil); got != tc.want {
			t.Errorf("Covers(%v) = %v", tc.c, got)
		}
	}
	if !p.OffersHandoff(nil, nil) || p.OffersHandoff(&jfk, &timesSquare) || !p.OffersHandoff(&jfk, &glasgowAir) {
		t.Error("OffersHandoff: want every path without coordinates, and a trip with one end covered")
	}
}

// Every coverage in the shipped registry names its public source, and New
// York is covered by Uber and Lyft only.
func TestShippedCoverage(t *testing.T) {
	r, err := registry.Load("")
	if err != nil {
		t.Fatal(err)
	}
	var inNY []string
	for _, p := range r.Providers {
		if p.Coverage != nil && !strings.HasPrefix(p.Coverage.Source, "https://") {
			t.Errorf("%s: coverage without a source", p.ID)
		}
		if p.OffersHandoff(&jfk, &timesSquare) {
			inNY = append(inNY, p.ID)
		}
	}
	if strings.Join(inNY, ",") != "uber,lyft" {
		t.Errorf("providers offered in New York: %v", inNY)
	}
}

func TestCoverageRefusals(t *testing.T) {
	shipped, err := os.ReadFile("../../../contracts/relay/providers.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct{ old, new, want string }{
		"no source":   {`"source": "https://gett.com/",`, ``, "public source"},
		"mixed area":  {`{ "name": "Israel", "south": 29.4,`, `{ "name": "Israel", "radius_km": 3, "south": 29.4,`, "want latitude"},
		"upside down": {`"south": 29.4, "west": 34.2, "north": 33.4`, `"south": 33.4, "west": 34.2, "north": 29.4`, "south above north"},
	} {
		t.Run(name, func(t *testing.T) {
			s := string(shipped)
			if !strings.Contains(s, tc.old) {
				t.Fatalf("the shipped registry lacks %q", tc.old)
			}
			path := filepath.Join(t.TempDir(), "providers.json")
			if err := os.WriteFile(path, []byte(strings.Replace(s, tc.old, tc.new, 1)), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, err := registry.Load(path); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load: %v, want %q", err, tc.want)
			}
		})
	}
}
