package main

import (
	"bytes"
	"errors"
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

	_, err := parseConfig([]string{"-h"}, getenv)
	var help helpRequest
	if !errors.As(err, &help) {
		t.Fatalf("-h: %v", err)
	}
	var out bytes.Buffer
	usage(&out, help.fs, getenv)
	for _, want := range []string{
		"-relay-option-ttl duration", "(default 5m0s)", "-relay-signing-keys string", "now set, from $RELAY_SIGNING_KEYS",
		"-relay-trident-url string", `now "http://env/mcp", from $RELAY_TRIDENT_URL`, "-uber-access-token string", "-lyft-client-secret string",
		`(default "https://api.uber.com")`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-h lacks %q", want)
		}
	}
	if strings.Contains(out.String(), env["RELAY_SIGNING_KEYS"]) {
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
