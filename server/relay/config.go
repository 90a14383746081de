package relay

import (
	"fmt"
	"time"
)

// OptionsFromEnv reads Relay's configuration variables through lookup
// (os.LookupEnv in the binary): RELAY_SIGNING_KEYS, RELAY_OPTION_TTL,
// RELAY_PROVIDERS_FILE and RELAY_TRIDENT_URL. selfMCP is this server's own
// Trident endpoint, the Trident source when RELAY_TRIDENT_URL is unset; set
// and empty, it disables the source.
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
	path, _ := lookup("RELAY_PROVIDERS_FILE")
	reg, err := LoadRegistry(path)
	if err != nil {
		return nil, err
	}
	o.Registry = reg
	url, set := lookup("RELAY_TRIDENT_URL")
	if !set {
		url = selfMCP
	}
	if _, listed := reg.Lookup("trident"); listed && url != "" {
		src, err := NewTridentSource(url)
		if err != nil {
			return nil, err
		}
		o.Sources["trident"] = src
	}
	return o, nil
}
