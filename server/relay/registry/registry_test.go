package registry_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
)

var (
	helensburgh = mcptypes.Coordinates{Latitude: 56.00416, Longitude: -4.73253} // Helensburgh Central Station
	glasgowAir  = mcptypes.Coordinates{Latitude: 55.8719, Longitude: -4.43306}  // Glasgow Airport
	jfk         = mcptypes.Coordinates{Latitude: 40.6413, Longitude: -73.7781}
	timesSquare = mcptypes.Coordinates{Latitude: 40.758, Longitude: -73.9855}
)

func TestShippedRegistry(t *testing.T) {
	r, err := registry.Load("")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range r.Providers {
		ids = append(ids, p.ID)
	}
	if strings.Join(ids, " ") != "trident uber lyft gett bolt freenow" {
		t.Errorf("registry order %v", ids)
	}
	tri, _ := r.Lookup("trident")
	if !tri.Covers(&helensburgh, &jfk) || tri.Covers(&jfk, &timesSquare) || !tri.Covers(nil, &glasgowAir) {
		t.Error("Trident's coverage: either end in its area")
	}
}

func TestRegistryFileIsChecked(t *testing.T) {
	for name, doc := range map[string]string{
		"unknown field":   `{"providers":[{"id":"x","name":"X","kind":"handoff","api":null,"coverage":null,"products":[],"link":null,"entry_page":"https://x.example","agent_policy":{"policy":"unknown","source":null,"advisories":[]},"attribution":"X","commission":null,"secret":"y"}]}`,
		"api without api": `{"providers":[{"id":"x","name":"X","kind":"api","api":null,"coverage":null,"products":[],"link":null,"entry_page":"https://x.example","agent_policy":{"policy":"unknown","source":null,"advisories":[]},"attribution":"X","commission":null}]}`,
		"bad template":    `{"providers":[{"id":"x","name":"X","kind":"handoff","api":null,"coverage":null,"products":[],"link":{"template":"https://x.example/?p={pickup_lat}","destination_kind":"web","source":"s"},"entry_page":"https://x.example","agent_policy":{"policy":"unknown","source":null,"advisories":[]},"attribution":"X","commission":null}]}`,
		"http entry page": `{"providers":[{"id":"x","name":"X","kind":"handoff","api":null,"coverage":null,"products":[],"link":null,"entry_page":"http://x.example","agent_policy":{"policy":"unknown","source":null,"advisories":[]},"attribution":"X","commission":null}]}`,
		"none":            `{"providers":[]}`,
	} {
		p := filepath.Join(t.TempDir(), "providers.json")
		if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := registry.Load(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := registry.Load(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "RELAY_PROVIDERS_FILE") {
		t.Errorf("missing file: %v", err)
	}
}
