package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// Relay's settings are flags too: -h lists them with their types and
// defaults (never a secret's value), and relay.FromEnv reads a flag before
// the environment, an empty flag included.
func TestRelayFlags(t *testing.T) {
	env := map[string]string{"RELAY_SIGNING_KEYS": "k1:" + strings.Repeat("A", 43), "RELAY_PROVIDERS_FILE": "/from/env.json", "RELAY_TRIDENT_URL": "http://env/mcp"}
	getenv := func(k string) string { return env[k] }
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }

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
	if strings.Contains(out, env["RELAY_SIGNING_KEYS"]) {
		t.Error("-h prints the signing keys")
	}

	c, err := parseConfig([]string{"-relay-option-ttl", "30s", "-relay-trident-url="}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	get := c.relayLookup(lookup)
	for _, tc := range []struct {
		env, want string
		set       bool
	}{
		{"RELAY_OPTION_TTL", "30s", true},                // a flag
		{"RELAY_TRIDENT_URL", "", true},                  // an empty flag: set, and empty (the source disabled)
		{"RELAY_PROVIDERS_FILE", "/from/env.json", true}, // no flag: the environment
		{"RELAY_RESOURCE_URL", "", false},                // neither
	} {
		if v, set := get(tc.env); v != tc.want || set != tc.set {
			t.Errorf("%s = %q, %v; want %q, %v", tc.env, v, set, tc.want, tc.set)
		}
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
	env := map[string]string{
		"RELAY_DATABASE_URL": "postgres://relay:hunter2@db.internal:5432/relay?sslmode=disable",
		"REDIS_URL":          "redis://:hunter3@cache.internal:6379/0",
		"RELAY_RATE_LIMIT":   "1000", "RELAY_RETENTION": "90d",
	}
	getenv := func(k string) string { return env[k] }
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }

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

	c, err := parseConfig([]string{"-relay-rate-limit", "5", "-relay-provider-budget", "7", "-relay-database-url", "sqlite:/tmp/x.db", "-relay-retention", "12h"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	get := c.relayLookup(lookup)
	for env, want := range map[string]string{"RELAY_RATE_LIMIT": "5", "RELAY_PROVIDER_BUDGET": "7", "RELAY_DATABASE_URL": "sqlite:/tmp/x.db", "RELAY_RETENTION": "12h"} {
		if v, set := get(env); v != want || !set {
			t.Errorf("%s = %q, %v; want the flag's %q", env, v, set, want)
		}
	}
	c, err = parseConfig(nil, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := c.relayLookup(lookup)("RELAY_RETENTION"); v != "90d" {
		t.Errorf("RELAY_RETENTION without a flag = %q, want the environment's 90d", v)
	}

	var ue usageError
	for _, args := range [][]string{{"-relay-rate-limit", "many"}, {"-relay-provider-budget", "1.5"}, {"-relay-retention", "5"}, {"-relay-retention", "0d"}} {
		if _, err := parseConfig(args, getenv); !errors.As(err, &ue) || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: %v, want a usage error naming the flag", args, err)
		}
	}
	if _, err := parseConfig(nil, func(k string) string { return map[string]string{"RELAY_RETENTION": "soon"}[k] }); err == nil ||
		!strings.Contains(err.Error(), `RELAY_RETENTION="soon"`) || !strings.Contains(err.Error(), "30d") {
		t.Errorf("RELAY_RETENTION=soon: %v, want an error naming it and the forms it takes", err)
	}
}

// A Relay flag reaches Relay when the server starts: -relay-database-url
// wins over the variable (a store that cannot open stops the start, naming
// RELAY_DATABASE_URL), and so does -relay-provider-budget.
func TestRelayFlagsReachTheServer(t *testing.T) {
	dir := t.TempDir()
	e := map[string]string{"ADDR": "127.0.0.1:0", "RELAY_DATABASE_URL": "sqlite:" + dir + "/env.db", "RELAY_TRIDENT_URL": ""}
	getenv := func(k string) string { return e[k] }
	t.Setenv("RELAY_DATABASE_URL", e["RELAY_DATABASE_URL"]) // relay.FromEnv reads the process's environment
	err := run(context.Background(), []string{"-relay-database-url", "mysql://db/relay"}, getenv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "RELAY_DATABASE_URL") || !strings.Contains(err.Error(), "mysql") {
		t.Errorf("-relay-database-url mysql://…: %v, want the start stopped on the flag's store", err)
	}
	t.Setenv("RELAY_PROVIDER_BUDGET", "10")
	err = run(context.Background(), []string{"-relay-provider-budget", "-1"}, getenv, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `RELAY_PROVIDER_BUDGET="-1"`) {
		t.Errorf("-relay-provider-budget -1: %v, want the start stopped on the flag's value", err)
	}
}

// Relay's client-credentials settings are flags too (the secret never in
// -h), and Relay reads the host's OAuth issuer, resource and base URL as
// the host has them, flags included: with everything given as flags and
// nothing in the environment, Relay's token request is fully configured.
func TestRelayTridentCredentialFlags(t *testing.T) {
	getenv := func(string) string { return "" }
	none := func(string) (string, bool) { return "", false }
	c, err := parseConfig([]string{
		"-mcp-require-oauth=true", "-oauth-issuer", "https://issuer.example/auth/v1", "-public-base-url", "https://rides.example",
		"-relay-trident-client-id", "relay", "-relay-trident-client-secret", "s3cret",
	}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	get := c.relayLookup(none)
	for env, want := range map[string]string{
		"RELAY_TRIDENT_CLIENT_ID": "relay", "RELAY_TRIDENT_CLIENT_SECRET": "s3cret",
		"OAUTH_ISSUER": "https://issuer.example/auth/v1", "PUBLIC_BASE_URL": "https://rides.example",
	} {
		if v, set := get(env); v != want || !set {
			t.Errorf("%s = %q, %v; want %q through the flags", env, v, set, want)
		}
	}
	if v, set := get("MCP_RESOURCE_URL"); set {
		t.Errorf("MCP_RESOURCE_URL = %q, want unset (no flag, no variable)", v)
	}

	env := map[string]string{"RELAY_TRIDENT_CLIENT_SECRET": "hunter2"}
	out := helpWith(t, func(k string) string { return env[k] })
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
func helpWith(t *testing.T, getenv func(string) string) string {
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
