package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestProtocolVersionsSetting(t *testing.T) {
	c, err := parseConfig(nil, env(map[string]string{"MCP_PROTOCOL_VERSIONS": " 2025-06-18, 2025-03-26 ,"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.host.ProtocolVersions, " "); got != "2025-06-18 2025-03-26" {
		t.Errorf("MCP_PROTOCOL_VERSIONS read as %q", got)
	}
	if c, _ := parseConfig(nil, env(nil)); c.host.ProtocolVersions != nil {
		t.Errorf("unset MCP_PROTOCOL_VERSIONS narrows to %q", c.host.ProtocolVersions)
	}
}

func TestStdioFlag(t *testing.T) {
	for args, want := range map[string]string{"-stdio": "/mcp", "-stdio=/mcp/rides": "/mcp/rides", "-stdio=/mcp": "/mcp", "-stdio=false": ""} {
		c, err := parseConfig([]string{args}, env(nil))
		if err != nil || c.stdio != want {
			t.Errorf("%s: %v, serves %q; want %q", args, err, c.stdio, want)
		}
	}
	if c, _ := parseConfig(nil, env(nil)); c.stdio != "" {
		t.Error("stdio without -stdio")
	}
	var ue usageError
	if _, err := parseConfig([]string{"-stdio=/mcp/nowhere"}, env(nil)); !errors.As(err, &ue) || !strings.Contains(err.Error(), "/mcp/rides") {
		t.Errorf("-stdio=/mcp/nowhere: %v, want a usage error naming the endpoints", err)
	}
	// OAuth is refused, not silently dropped.
	err := run(context.Background(), []string{"-stdio"}, env(map[string]string{
		"MCP_REQUIRE_OAUTH": "true", "OAUTH_ISSUER": "https://issuer.example/auth/v1",
	}), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "MCP_REQUIRE_OAUTH") {
		t.Errorf("-stdio in OAuth mode: %v, want a refusal naming MCP_REQUIRE_OAUTH", err)
	}
}
