package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tridenttaxis/trident-mcp/server/limits"
	"github.com/tridenttaxis/trident-mcp/server/relay"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// relayOptionsOf is what Relay is given for args and the environment
// getenv reads, on a server whose own /mcp is at selfMCP.
func relayOptionsOf(t *testing.T, args []string, getenv environ) *relay.Options {
	t.Helper()
	c, err := parseConfig(args, getenv)
	if err != nil {
		t.Fatal(err)
	}
	o, err := relayOptions(c.settings, relayHost{selfMCP: selfMCP, internalToken: "host-token", publicBaseURL: c.host.PublicBaseURL})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

const selfMCP = "http://127.0.0.1:8080/mcp"

// Relay's settings are flags too: -h lists them with their types and
// defaults (never a secret's value), and Relay's options take a flag over
// the environment, an empty flag included.
func TestRelayFlags(t *testing.T) {
	vars := map[string]string{"RELAY_SIGNING_KEYS": "k1:" + strings.Repeat("A", 43), "RELAY_PROVIDERS_FILE": "/from/env.json", "RELAY_TRIDENT_URL": "http://env/mcp"}
	getenv := env(vars)

	out := helpWith(t, getenv)
	for _, want := range []string{
		"-relay-option-ttl duration", "(default 5m0s)", "-relay-signing-keys string", "now set, from $RELAY_SIGNING_KEYS",
		"-relay-trident-url string", `now "http://env/mcp", from $RELAY_TRIDENT_URL`, "-uber-access-token string", "-lyft-client-secret string",
		`(default "https://api.uber.com")`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("-h lacks %q", want)
		}
	}
	if strings.Contains(out, vars["RELAY_SIGNING_KEYS"]) {
		t.Error("-h prints the signing keys")
	}

	o := relayOptionsOf(t, []string{"-relay-option-ttl", "30s", "-relay-trident-url="}, getenv)
	if o.OptionTTL != 30*time.Second || o.ProvidersFile != "/from/env.json" || o.ResourceURL != "" || o.Keys == nil {
		t.Errorf("TTL %s (want the flag's 30s), providers file %q (want the environment's), resource %q (want none), keys %v (want the environment's)",
			o.OptionTTL, o.ProvidersFile, o.ResourceURL, o.Keys)
	}
	if o.TridentURL != "" || o.TridentInternalToken != "" {
		t.Errorf("-relay-trident-url= gave Trident URL %q, internal token %q; want none (the source disabled)", o.TridentURL, o.TridentInternalToken)
	}
	// A Trident elsewhere never sees the host's internal token; this
	// server's own does.
	if o := relayOptionsOf(t, nil, getenv); o.TridentURL != "http://env/mcp" || o.TridentInternalToken != "" {
		t.Errorf("RELAY_TRIDENT_URL set: %q, internal token %q; want the variable's, and no token", o.TridentURL, o.TridentInternalToken)
	}
	if o := relayOptionsOf(t, nil, env(nil)); o.TridentURL != selfMCP || o.TridentInternalToken != "host-token" || o.OptionTTL != relay.MaxOptionTTL {
		t.Errorf("nothing set: Trident %q, internal token %q, TTL %s; want this server's own /mcp with the host's token, and 5m", o.TridentURL, o.TridentInternalToken, o.OptionTTL)
	}
	var ue usageError
	if _, err := parseConfig([]string{"-relay-option-ttl", "5"}, getenv); !errors.As(err, &ue) || !strings.Contains(err.Error(), "relay-option-ttl") {
		t.Errorf("-relay-option-ttl 5: %v, want a usage error naming the flag", err)
	}
}

// Relay's store and limits are flags too: typed and defaulted in -h, a flag
// over the variable, a bad value a usage error naming the flag (a bad
// variable an error naming it), and a URL's password never in -h.
func TestRelayStoreAndLimitFlags(t *testing.T) {
	vars := map[string]string{
		"RELAY_DATABASE_URL": "postgres://relay:hunter2@db.internal:5432/relay?sslmode=disable",
		"REDIS_URL":          "redis://:hunter3@cache.internal:6379/0",
		"RELAY_RATE_LIMIT":   "1000", "RELAY_RETENTION": "90d",
	}
	getenv := env(vars)

	out := helpWith(t, getenv)
	for _, want := range []string{
		"-relay-rate-limit int\n", "($RELAY_RATE_LIMIT) (default 300)", `now 1000, from $RELAY_RATE_LIMIT`,
		"-relay-provider-budget int\n", "($RELAY_PROVIDER_BUDGET) (default 600)",
		"-relay-database-url string\n", `($RELAY_DATABASE_URL) (default "sqlite:relay.db")`,
		`now "postgres://relay:xxxxx@db.internal:5432/relay?sslmode=disable", from $RELAY_DATABASE_URL`,
		`now "redis://:xxxxx@cache.internal:6379/0", from $REDIS_URL`,
		"-relay-retention period\n", "($RELAY_RETENTION) (default 30d)", "now 90d, from $RELAY_RETENTION",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("-h lacks %q", want)
		}
	}
	for _, secret := range []string{"hunter2", "hunter3"} {
		if strings.Contains(out, secret) {
			t.Errorf("-h prints the password %q", secret)
		}
	}
	if got := redactURL("postgres://db/relay?user=relay&password=hunter4"); strings.Contains(got, "hunter4") {
		t.Errorf("redactURL of a password= query: %q", got)
	}

	o := relayOptionsOf(t, []string{"-relay-rate-limit", "5", "-relay-provider-budget", "7", "-relay-database-url", "sqlite:/tmp/x.db", "-relay-retention", "12h"}, getenv)
	if o.ActorLimit != limits.PerMinute(5) || o.ProviderBudget != limits.PerMinute(7) || o.DatabaseURL != "sqlite:/tmp/x.db" || o.Retention != 12*time.Hour {
		t.Errorf("actor %+v, budget %+v, database %q, retention %s; want the flags' 5/min, 7/min, sqlite:/tmp/x.db, 12h", o.ActorLimit, o.ProviderBudget, o.DatabaseURL, o.Retention)
	}
	o = relayOptionsOf(t, nil, getenv)
	if o.Retention != 90*24*time.Hour || o.ActorLimit != limits.PerMinute(1000) || o.DatabaseURL != vars["RELAY_DATABASE_URL"] {
		t.Errorf("without flags: retention %s, actor %+v, database %q; want the environment's 90d, 1000/min and its URL", o.Retention, o.ActorLimit, o.DatabaseURL)
	}
	o = relayOptionsOf(t, []string{"-relay-rate-limit", "0", "-relay-database-url=", "-relay-retention="}, getenv)
	if o.ActorLimit.Rate >= 0 || o.DatabaseURL != store.DefaultURL || o.Retention != store.DefaultRetention {
		t.Errorf("-relay-rate-limit 0, empty store flags: actor %+v (want off), database %q, retention %s (want the defaults)", o.ActorLimit, o.DatabaseURL, o.Retention)
	}

	var ue usageError
	for _, args := range [][]string{{"-relay-rate-limit", "many"}, {"-relay-provider-budget", "1.5"}, {"-relay-retention", "5"}, {"-relay-retention", "0d"}} {
		if _, err := parseConfig(args, getenv); !errors.As(err, &ue) || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: %v, want a usage error naming the flag", args, err)
		}
	}
	if _, err := parseConfig(nil, env(map[string]string{"RELAY_RETENTION": "soon"})); err == nil ||
		!strings.Contains(err.Error(), `RELAY_RETENTION="soon"`) || !strings.Contains(err.Error(), "30d") {
		t.Errorf("RELAY_RETENTION=soon: %v, want an error naming it and the forms it takes", err)
	}
}

// A Relay flag reaches Relay when the server starts: -relay-database-url
// wins over the variable (a store that cannot open stops the start, naming
// RELAY_DATABASE_URL), and so does -relay-provider-budget.
func TestRelayFlagsReachTheServer(t *testing.T) {
	dir := t.TempDir()
	e := map[string]string{"ADDR": "127.0.0.1:0", "RELAY_DATABASE_URL": "sqlite:" + dir + "/env.db", "RELAY_PROVIDER_BUDGET": "10"}
	getenv := env(e)
	err := run(context.Background(), []string{"-relay-database-url", "mysql://db/relay"}, getenv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "RELAY_DATABASE_URL") || !strings.Contains(err.Error(), "mysql") {
		t.Errorf("-relay-database-url mysql://…: %v, want the start stopped on the flag's store", err)
	}
	err = run(context.Background(), []string{"-relay-provider-budget", "-1"}, getenv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `RELAY_PROVIDER_BUDGET="-1"`) {
		t.Errorf("-relay-provider-budget -1: %v, want the start stopped on the flag's value", err)
	}
}

// Relay's client-credentials settings are flags too (the secret never in
// -h), and Relay takes the host's OAuth issuer, resource and base URL as
// the host has them, flags included: with everything given as flags and
// nothing in the environment, Relay's token request is fully configured.
func TestRelayTridentCredentialFlags(t *testing.T) {
	o := relayOptionsOf(t, []string{
		"-mcp-require-oauth=true", "-oauth-issuer", "https://issuer.example/auth/v1", "-public-base-url", "https://rides.example",
		"-relay-trident-client-id", "relay", "-relay-trident-client-secret", "s3cret",
	}, env(nil))
	want := sources.TridentCredentials{ClientID: "relay", ClientSecret: "s3cret", TokenURL: "https://issuer.example/auth/v1/oauth/token", Resource: "https://rides.example/mcp"}
	if o.TridentCredentials == nil || !reflect.DeepEqual(*o.TridentCredentials, want) {
		t.Errorf("credentials %+v, want %+v through the flags", o.TridentCredentials, want)
	}

	vars := map[string]string{"RELAY_TRIDENT_CLIENT_SECRET": "hunter2"}
	out := helpWith(t, env(vars))
	for _, want := range []string{"-relay-trident-client-id string", "-relay-trident-client-secret string", "now set, from $RELAY_TRIDENT_CLIENT_SECRET",
		"-relay-trident-token-url string", "-relay-trident-resource string"} {
		if !strings.Contains(out, want) {
			t.Errorf("-h lacks %q", want)
		}
	}
	if strings.Contains(out, "hunter2") {
		t.Error("-h prints Relay's client secret")
	}
}

// helpWith is what -h prints with the environment getenv reads.
func helpWith(t *testing.T, getenv environ) string {
	t.Helper()
	_, err := parseConfig([]string{"-h"}, getenv)
	var help helpRequest
	if !errors.As(err, &help) {
		t.Fatalf("-h: %v", err)
	}
	var out bytes.Buffer
	usage(&out, help.fs, getenv)
	return out.String()
}

// Relay's Trident credentials: none without a client id; the token
// endpoint from the issuer and the resource from the public base URL by
// default; a half-set configuration is an error.
func TestTridentCredentials(t *testing.T) {
	get := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	if c, err := tridentCredentials(get(), "http://h.example"); c != nil || err != nil {
		t.Errorf("unset: %+v, %v; want neither", c, err)
	}
	c, err := tridentCredentials(get("RELAY_TRIDENT_CLIENT_ID", "r", "RELAY_TRIDENT_CLIENT_SECRET", "s", "OAUTH_ISSUER", "http://iss.example/auth/v1/"), "http://h.example")
	if err != nil || c == nil || c.TokenURL != "http://iss.example/auth/v1/oauth/token" || c.Resource != "http://h.example/mcp" {
		t.Errorf("defaults = %+v, %v", c, err)
	}
	c, err = tridentCredentials(get("RELAY_TRIDENT_CLIENT_ID", "r", "RELAY_TRIDENT_CLIENT_SECRET", "s", "RELAY_TRIDENT_TOKEN_URL", "http://t.example/token",
		"MCP_RESOURCE_URL", "https://mcp.example/mcp"), "http://h.example")
	if err != nil || c == nil || c.TokenURL != "http://t.example/token" || c.Resource != "https://mcp.example/mcp" {
		t.Errorf("token URL and MCP_RESOURCE_URL = %+v, %v", c, err)
	}
	for name, e := range map[string]func(string) string{
		"no secret": get("RELAY_TRIDENT_CLIENT_ID", "r"),
		"no issuer": get("RELAY_TRIDENT_CLIENT_ID", "r", "RELAY_TRIDENT_CLIENT_SECRET", "s"),
	} {
		if _, err := tridentCredentials(e, "http://h.example"); err == nil || !strings.Contains(err.Error(), "RELAY_TRIDENT_CLIENT_ID") {
			t.Errorf("%s: %v, want an error naming RELAY_TRIDENT_CLIENT_ID", name, err)
		}
	}
	if _, err := tridentCredentials(get("RELAY_TRIDENT_CLIENT_ID", "r", "RELAY_TRIDENT_CLIENT_SECRET", "s", "OAUTH_ISSUER", "http://iss.example"), ""); err == nil {
		t.Error("no resource: no error")
	}
}

func TestSelfMCPURL(t *testing.T) {
	for addr, want := range map[string]string{
		":8080": "http://127.0.0.1:8080/mcp", "0.0.0.0:9000": "http://127.0.0.1:9000/mcp", "[::]:8080": "http://127.0.0.1:8080/mcp",
		"127.0.0.1:8181": "http://127.0.0.1:8181/mcp", "[::1]:8080": "http://[::1]:8080/mcp", ":0": "", "nonsense": "",
	} {
		if got := selfMCPURL(addr); got != want {
			t.Errorf("selfMCPURL(%q) = %q, want %q", addr, got, want)
		}
	}
}

// Relay takes the host's one Redis client, under its own prefix, and opens
// none of its own; without REDIS_URL it has none.
func TestRelayGetsTheHostsRedis(t *testing.T) {
	c, err := parseConfig([]string{"-redis-key-prefix", "p:"}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	host := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled here
	defer host.Close()
	o, err := relayOptions(c.settings, relayHost{redis: host, redisPrefix: c.redisPrefix})
	if err != nil {
		t.Fatal(err)
	}
	if o.Redis != host || o.RedisPrefix != "p:relay:" {
		t.Errorf("Redis %v, prefix %q; want the host's client under p:relay:", o.Redis, o.RedisPrefix)
	}
	if o, _ := relayOptions(c.settings, relayHost{}); o.Redis != nil {
		t.Errorf("without the host's client: Redis %v, want none", o.Redis)
	}
}
