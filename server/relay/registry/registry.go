package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	relaycontracts "github.com/tridenttaxis/trident-mcp/contracts/relay"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/geodesy"
)

// Shipped names the provider registry shipped in Relay's contract folder
// (embedded in the binary), the one [Load] reads given no path.
const Shipped = "contracts/relay/providers.json"

// Registry is the provider registry (providers.json): every provider Relay
// knows, in registry order, the order sources are tried in when a search
// names none.
type Registry struct {
	Providers []Provider `json:"providers"`
}

// Provider is one registry entry. Its fields mirror providers.schema.json.
type Provider struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Kind        string         `json:"kind"` // "api" or "handoff"
	API         *ProviderAPI   `json:"api"`
	Coverage    *Coverage      `json:"coverage"`
	Products    []ProductEntry `json:"products"`
	Link        *LinkTemplate  `json:"link"`
	EntryPage   string         `json:"entry_page"`
	AgentPolicy AgentPolicy    `json:"agent_policy"`
	Attribution string         `json:"attribution"`
	// Commission is a private commercial term. Relay reads it so that the
	// registry round-trips, and never uses it to select or order anything.
	Commission *float64 `json:"commission"`
	Enabled    *bool    `json:"enabled,omitempty"`
}

// ProviderAPI says how Relay reaches a priced source.
type ProviderAPI struct {
	Adapter        string   `json:"adapter"`
	Credentials    []string `json:"credentials"`
	RequiredInputs []string `json:"required_inputs"`
	DataMode       string   `json:"data_mode"`
	Authorized     *bool    `json:"authorized,omitempty"`
}

// Coverage is where a provider operates, as it states publicly (Source):
// a trip is covered when its pickup or its dropoff lies inside one of the
// areas. Countries name what the areas stand for; the areas are what is
// tested, because a country needs its borders and the registry keeps
// boxes, not borders.
type Coverage struct {
	Description string   `json:"description,omitempty"`
	Countries   []string `json:"countries,omitempty"`
	Source      string   `json:"source"`
	Areas       []Area   `json:"areas"`
}

// Area is a circle on the globe (Latitude, Longitude, RadiusKm) or a
// latitude/longitude box (South, West, North, East; West > East crosses
// the antimeridian), with the page that states it when not the coverage's.
type Area struct {
	Name      string   `json:"name"`
	Latitude  *float64 `json:"latitude,omitempty"`
	Longitude *float64 `json:"longitude,omitempty"`
	RadiusKm  *float64 `json:"radius_km,omitempty"`
	South     *float64 `json:"south,omitempty"`
	West      *float64 `json:"west,omitempty"`
	North     *float64 `json:"north,omitempty"`
	East      *float64 `json:"east,omitempty"`
	Source    string   `json:"source,omitempty"`
}

// circle reports whether a is a circle (else a box); check has made sure
// it is exactly one of the two.
func (a Area) circle() bool { return a.RadiusKm != nil }

// contains reports whether c lies in a.
func (a Area) contains(c mcptypes.Coordinates) bool {
	if a.circle() {
		return geodesy.Meters(*a.Latitude, *a.Longitude, c.Latitude, c.Longitude) <= *a.RadiusKm*1000
	}
	if c.Latitude < *a.South || c.Latitude > *a.North {
		return false
	}
	if *a.West <= *a.East {
		return c.Longitude >= *a.West && c.Longitude <= *a.East
	}
	return c.Longitude >= *a.West || c.Longitude <= *a.East // across the antimeridian
}

func (a Area) check() error {
	circle := a.Latitude != nil && a.Longitude != nil && a.RadiusKm != nil
	box := a.South != nil && a.West != nil && a.North != nil && a.East != nil
	anyCircle := a.Latitude != nil || a.Longitude != nil || a.RadiusKm != nil
	anyBox := a.South != nil || a.West != nil || a.North != nil || a.East != nil
	switch {
	case a.Name == "":
		return errors.New("an area needs a name")
	case circle && !anyBox:
		if *a.RadiusKm <= 0 {
			return fmt.Errorf("area %q: radius_km must be above 0", a.Name)
		}
		return nil
	case box && !anyCircle:
		if *a.South > *a.North {
			return fmt.Errorf("area %q: south above north", a.Name)
		}
		return nil
	}
	return fmt.Errorf("area %q: want latitude, longitude and radius_km, or south, west, north and east", a.Name)
}

// ProductEntry is a product Relay asks a source for.
type ProductEntry struct {
	ID                 string  `json:"id"`
	Name               string  `json:"name"`
	Capacity           int     `json:"capacity"`
	BookingVehicleType *string `json:"booking_vehicle_type"`
}

// LinkTemplate is a provider's published link format with the coordinate
// placeholders {pickup_lat}, {pickup_lng}, {dropoff_lat} and {dropoff_lng}.
type LinkTemplate struct {
	Template        string `json:"template"`
	DestinationKind string `json:"destination_kind"`
	Source          string `json:"source"`
}

// AgentPolicy is what the provider states about automated agents, with its
// source. Relay reports it as advisory metadata only.
type AgentPolicy struct {
	Policy     string              `json:"policy"`
	Source     *string             `json:"source"`
	Advisories []mcptypes.Advisory `json:"advisories"`
}

// Load reads the registry from path (the operator's RELAY_PROVIDERS_FILE),
// or the shipped one when path is "". It checks what the code relies on (unique ids, an api block on
// every api provider, templates with all four placeholders) so that a bad
// operator file stops the server at start-up.
func Load(path string) (*Registry, error) {
	var (
		b   []byte
		err error
	)
	if path == "" {
		b, err = relaycontracts.Set.ReadFile("providers.json")
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("relay: RELAY_PROVIDERS_FILE: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var doc struct {
		Schema      string     `json:"$schema"`
		Description string     `json:"description"`
		Providers   []Provider `json:"providers"`
	}
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("relay: provider registry %s: %w", orShipped(path), err)
	}
	r := &Registry{}
	seen := map[string]bool{}
	for _, p := range doc.Providers {
		if p.Enabled != nil && !*p.Enabled {
			continue
		}
		if err := p.check(); err != nil {
			return nil, fmt.Errorf("relay: provider registry %s: %w", orShipped(path), err)
		}
		if seen[p.ID] {
			return nil, fmt.Errorf("relay: provider registry %s: provider %q listed twice", orShipped(path), p.ID)
		}
		seen[p.ID] = true
		r.Providers = append(r.Providers, p)
	}
	if len(r.Providers) == 0 {
		return nil, fmt.Errorf("relay: provider registry %s enables no provider", orShipped(path))
	}
	return r, nil
}

func orShipped(path string) string {
	if path == "" {
		return Shipped
	}
	return path
}

func (p Provider) check() error {
	if p.ID == "" || p.Name == "" || p.Attribution == "" {
		return fmt.Errorf("provider %q: id, name and attribution are required", p.ID)
	}
	switch p.Kind {
	case "api":
		if p.API == nil {
			return fmt.Errorf("provider %q: kind api needs an api block", p.ID)
		}
	case "handoff":
		if p.API != nil {
			return fmt.Errorf("provider %q: kind handoff takes no api block", p.ID)
		}
	default:
		return fmt.Errorf("provider %q: kind %q: want api or handoff", p.ID, p.Kind)
	}
	if p.Link != nil {
		for _, ph := range []string{"{pickup_lat}", "{pickup_lng}", "{dropoff_lat}", "{dropoff_lng}"} {
			if !strings.Contains(p.Link.Template, ph) {
				return fmt.Errorf("provider %q: link template lacks %s", p.ID, ph)
			}
		}
	}
	if p.EntryPage != "" && !strings.HasPrefix(p.EntryPage, "https://") {
		return fmt.Errorf("provider %q: entry_page must be an https URL", p.ID)
	}
	if p.Coverage != nil {
		if !strings.HasPrefix(p.Coverage.Source, "https://") {
			return fmt.Errorf("provider %q: coverage needs its public source, an https URL", p.ID)
		}
		if len(p.Coverage.Areas) == 0 {
			return fmt.Errorf("provider %q: coverage lists no area", p.ID)
		}
		for _, a := range p.Coverage.Areas {
			if err := a.check(); err != nil {
				return fmt.Errorf("provider %q: coverage: %w", p.ID, err)
			}
		}
	}
	return nil
}

// Lookup returns the provider with id.
func (r *Registry) Lookup(id string) (Provider, bool) {
	for _, p := range r.Providers {
		if p.ID == id {
			return p, true
		}
	}
	return Provider{}, false
}

// Covers reports whether a trip with these ends lies in the provider's
// coverage. No coverage block means no check; a provider with coverage
// needs at least one end to test.
func (p Provider) Covers(pickup, dropoff *mcptypes.Coordinates) bool {
	if p.Coverage == nil {
		return true
	}
	for _, a := range p.Coverage.Areas {
		for _, c := range []*mcptypes.Coordinates{pickup, dropoff} {
			if c != nil && a.contains(*c) {
				return true
			}
		}
	}
	return false
}

// OffersHandoff is the one rule search_rides and get_ride_booking_handoff
// share: a provider's browser path is offered unless the trip's known
// coordinates lie outside its coverage. Without coordinates nothing can be
// tested, and the entry page is offered.
func (p Provider) OffersHandoff(pickup, dropoff *mcptypes.Coordinates) bool {
	return p.Coverage == nil || (pickup == nil && dropoff == nil) || p.Covers(pickup, dropoff)
}

// CoverageText says where the provider operates, for a reason or a
// refusal: its description, else its areas' names.
func (p Provider) CoverageText() string {
	if p.Coverage == nil {
		return "anywhere"
	}
	if p.Coverage.Description != "" {
		return p.Coverage.Description
	}
	names := make([]string, len(p.Coverage.Areas))
	for i, a := range p.Coverage.Areas {
		names[i] = a.Name
	}
	return strings.Join(names, ", ")
}

// FormatCoordinate writes a coordinate as its shortest decimal, the same
// digits the caller sent (encoding/json parsed them to the nearest float64,
// and the shortest representation of that float is the decimal it came
// from): in links, in Trident's place text, in a request scope's digest.
func FormatCoordinate(v float64) string { return string(AppendCoordinate(make([]byte, 0, 24), v)) }

// AppendCoordinate appends [FormatCoordinate]'s text of v to dst.
func AppendCoordinate(dst []byte, v float64) []byte { return strconv.AppendFloat(dst, v, 'f', -1, 64) }

// Handoff is the provider's browser path for a trip: the coordinate link
// when the provider publishes a format and both ends are known, else its
// entry page. ok is false when the provider has neither.
func (p Provider) Handoff(pickup, dropoff *mcptypes.Coordinates) (h mcptypes.BrowserHandoff, ok bool) {
	h = mcptypes.BrowserHandoff{Provider: p.ID, Name: p.Name, Attribution: p.Attribution}
	switch {
	case p.Link != nil && pickup != nil && dropoff != nil:
		// ReplaceAll per placeholder rather than a strings.Replacer per
		// call: building the Replacer's lookup table was an eighth of
		// what a search allocated (BenchmarkSearchRidesParallel).
		u := p.Link.Template
		for _, r := range [...][2]string{
			{"{pickup_lat}", FormatCoordinate(pickup.Latitude)}, {"{pickup_lng}", FormatCoordinate(pickup.Longitude)},
			{"{dropoff_lat}", FormatCoordinate(dropoff.Latitude)}, {"{dropoff_lng}", FormatCoordinate(dropoff.Longitude)},
		} {
			u = strings.ReplaceAll(u, r[0], r[1])
		}
		h.URL = u
		h.DestinationKind = mcptypes.BrowserHandoffDestinationKind(p.Link.DestinationKind)
		h.ParametersApplied = true
		if !strings.HasPrefix(h.URL, "https://") && p.EntryPage != "" {
			// An app-scheme link (gett://) opens nothing on a device
			// without the app: the entry page is its web fallback.
			fallback := p.EntryPage
			h.FallbackURL = &fallback
		}
	case p.EntryPage != "":
		h.URL = p.EntryPage
		h.DestinationKind = mcptypes.BrowserHandoffDestinationKindProviderEntry
	default:
		return h, false
	}
	return h, true
}
