package relay

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
	"github.com/tridenttaxis/trident-mcp/server/relay/providers/lyft"
	"github.com/tridenttaxis/trident-mcp/server/relay/providers/uber"
)

// OptionsFromEnv reads Relay's configuration variables through lookup
// (os.LookupEnv in the binary): RELAY_SIGNING_KEYS, RELAY_OPTION_TTL,
// RELAY_RESOURCE_URL, RELAY_PROVIDERS_FILE, RELAY_TRIDENT_URL and the Uber
// and Lyft credentials (see addEstimators). selfMCP is this server's own
// Trident endpoint, the Trident source when RELAY_TRIDENT_URL is unset; set
// and empty, it disables the source. RELAY_RESOURCE_URL is the endpoint's
// resource URI (zero: the host's public base URL + /mcp/rides).
func OptionsFromEnv(lookup func(string) (string, bool), selfMCP string) (*Options, error) {
	o := &Options{Sources: map[string]Source{}}
	if v, ok := lookup("RELAY_SIGNING_KEYS"); ok && v != "" {
		k, err := ParseKeys(v)
		if err != nil {
			return nil, err
		}
		o.Keys = k
	}
	if v, ok := lookup("RELAY_OPTION_TTL"); ok && v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("relay: RELAY_OPTION_TTL=%q: %w", v, err)
		}
		if d <= 0 || d > MaxOptionTTL {
			return nil, fmt.Errorf("relay: RELAY_OPTION_TTL=%q: want a duration above 0 and at most %s", v, MaxOptionTTL)
		}
		o.OptionTTL = d
	}
	o.ResourceURL, _ = lookup("RELAY_RESOURCE_URL")
	if err := limitsFromEnv(context.Background(), o, func(k string) string { v, _ := lookup(k); return v }); err != nil {
		return nil, err
	}
	path, _ := lookup("RELAY_PROVIDERS_FILE")
	reg, err := LoadRegistry(path)
	if err != nil {
		return nil, err
	}
	o.Registry = reg
	getenv := func(k string) string { v, _ := lookup(k); return v }
	if err := addEstimators(o, reg, getenv); err != nil {
		return nil, err
	}
	url, set := lookup("RELAY_TRIDENT_URL")
	if !set {
		url = selfMCP
	}
	if _, listed := reg.Lookup("trident"); listed && url != "" {
		access, err := tridentAccess(getenv)
		if err != nil {
			return nil, err
		}
		src, err := NewTridentSource(url, access...)
		if err != nil {
			return nil, err
		}
		o.Sources["trident"] = src
	}
	return o, nil
}

// addEstimators configures Uber (UBER_API_URL, UBER_ACCESS_TOKEN) and Lyft
// (LYFT_API_URL, LYFT_CLIENT_ID, LYFT_CLIENT_SECRET) when the registry
// lists them; without credentials a source is left out, so a search reports
// it credentials_required and never calls it.
func addEstimators(o *Options, reg *Registry, getenv func(string) string) error {
	if _, ok := reg.Lookup(uber.Provider); ok {
		c, err := uber.New(uber.ConfigFromEnv(getenv), nil)
		if err != nil {
			return err
		}
		if c.Configured() {
			o.Sources[uber.Provider] = EstimatorSource{Estimator: c, Operation: "GET " + uber.PricePath}
		}
	}
	if _, ok := reg.Lookup(lyft.Provider); ok {
		c, err := lyft.New(lyft.ConfigFromEnv(getenv), nil)
		if err != nil {
			return err
		}
		if c.Configured() {
			o.Sources[lyft.Provider] = EstimatorSource{Estimator: c, Operation: "GET " + lyft.CostPath}
		}
	}
	return nil
}

// FromEnv builds the Relay endpoint from the environment (see
// [OptionsFromEnv]) for the host to mount beside Trident's, with its store
// opened from RELAY_DATABASE_URL and purged after RELAY_RETENTION (see
// storeFromEnv).
func FromEnv(lookup func(string) (string, bool), selfMCP string, logger *slog.Logger) (*mcphttp.Endpoint, error) {
	o, err := OptionsFromEnv(lookup, selfMCP)
	if err != nil {
		return nil, err
	}
	o.Logger = logger
	if o.Store, o.Retention, err = storeFromEnv(lookup); err != nil {
		return nil, err
	}
	s, err := New(o)
	if err != nil {
		o.Store.Close()
		return nil, err
	}
	ep := s.Endpoint()
	ep.Close = func() error {
		s.Close()
		return o.Store.Close()
	}
	return ep, nil
}

// SelfMCPURL is the loopback URL of this server's own Trident endpoint for
// a listen address such as ":8080" or "0.0.0.0:8080": Relay's default
// Trident source, reached without leaving the machine whatever
// PUBLIC_BASE_URL says. A port of 0 has no URL before listening; set
// RELAY_TRIDENT_URL then.
func SelfMCPURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "0" || port == "" {
		return ""
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/mcp"
}
