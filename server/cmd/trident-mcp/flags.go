package main

import (
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// kind is the type of a setting's value: what -h shows beside its flag, and
// what a flag or its environment variable must parse as.
type kind string

const (
	kindString   kind = "string"
	kindBool     kind = "bool"
	kindInt      kind = "int"
	kindDuration kind = "duration" // as Go writes them: 500ms, 5s, 10m
	kindTime     kind = "time"     // an RFC 3339 instant
	kindPeriod   kind = "period"   // a duration or whole days: 720h, 30d (RELAY_RETENTION)
)

// kinds gives the type of every setting of vars that is not a plain string.
var kinds = map[string]kind{
	"MCP_REQUIRE_OAUTH":      kindBool,
	"CONFORMANCE_FIXTURES":   kindBool,
	"MAX_BODY_BYTES":         kindInt,
	"GEO_CACHE_SIZE":         kindInt,
	"GEO_BREAKER_FAILURES":   kindInt,
	"GEO_TIMEOUT":            kindDuration,
	"NOMINATIM_MIN_INTERVAL": kindDuration,
	"GEO_CACHE_TTL":          kindDuration,
	"GEO_BREAKER_OPEN":       kindDuration,
	"SHUTDOWN_DELAY":         kindDuration,
	"SHUTDOWN_TIMEOUT":       kindDuration,
	"READ_HEADER_TIMEOUT":    kindDuration,
	"REDIS_TIMEOUT":          kindDuration,
	"FARE_CLOCK":             kindTime,
	"RELAY_OPTION_TTL":       kindDuration,
	"RELAY_RATE_LIMIT":       kindInt,
	"RELAY_PROVIDER_BUDGET":  kindInt,
	"RELAY_RETENTION":        kindPeriod,
}

// secrets are the settings -h never prints the value of, only that the
// environment sets them.
var secrets = map[string]bool{
	"RELAY_SIGNING_KEYS": true, "RELAY_TRIDENT_CLIENT_SECRET": true, "UBER_ACCESS_TOKEN": true, "LYFT_CLIENT_SECRET": true,
}

// credentialURLs are the settings whose URL may carry a password
// (redis://:pw@host, postgres://user:pw@host/db): -h prints them with the
// password masked (redactURL), since the rest (which server, which
// database) is what an operator checks there.
var credentialURLs = map[string]bool{"REDIS_URL": true, "RELAY_DATABASE_URL": true}

// redactURL masks the password of a URL, in its user information as
// url.URL.Redacted does and in a password= query parameter (which pgx
// reads too). A value that does not parse as a URL is not shown at all.
func redactURL(v string) string {
	u, err := url.Parse(v)
	if err != nil {
		return "(set, not shown: it does not parse as a URL)"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

func kindOf(env string) kind {
	if k, ok := kinds[env]; ok {
		return k
	}
	return kindString
}

// check reports why v is not a value of kind k. An empty value is allowed
// where it means "unset" (strings, and FARE_CLOCK's real time).
func (k kind) check(v string) error {
	if v == "" && (k == kindString || k == kindTime) {
		return nil
	}
	var err error
	var want string
	switch k {
	case kindBool:
		_, err = strconv.ParseBool(v)
		want = "true or false"
	case kindInt:
		_, err = strconv.ParseInt(v, 10, 64)
		want = "a whole number"
	case kindDuration:
		_, err = time.ParseDuration(v)
		want = "a duration such as 5s or 10m"
	case kindTime:
		_, err = time.Parse(time.RFC3339, v)
		want = "an RFC 3339 instant such as 2025-06-18T09:00:00Z"
	case kindPeriod:
		_, err = store.ParseRetention(v)
		want = "a positive duration such as 720h or a number of days such as 30d"
	}
	if err != nil {
		return errors.New("want " + want)
	}
	return nil
}

// setting is the flag.Value of one setting. It checks each value against
// the setting's kind as it is set, so a bad flag fails with the flag's name
// (`invalid value "5" for flag -geo-timeout: want a duration ...`), and a
// bool setting is a boolean flag: -mcp-require-oauth alone means true.
type setting struct {
	kind  kind
	value string
}

func (s *setting) String() string { return s.value }

func (s *setting) Set(v string) error {
	if err := s.kind.check(v); err != nil {
		return err
	}
	s.value = v
	return nil
}

// IsBoolFlag lets the flag package accept a bool setting without a value.
func (s *setting) IsBoolFlag() bool { return s.kind == kindBool }

// usageError is a mistake on the command line: the binary exits 2 and
// points at -h, as Go's own commands do.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usageErrorf(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// helpRequest is -h: the flag set it came from, for usage to list.
type helpRequest struct{ fs *flag.FlagSet }

func (helpRequest) Error() string { return flag.ErrHelp.Error() }
func (helpRequest) Unwrap() error { return flag.ErrHelp }
