package main

import (
	"context"
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
	c, err := parseConfig([]string{"-stdio"}, env(nil))
	if err != nil || !c.stdio {
		t.Fatalf("-stdio: %v, %+v", err, c)
	}
	if c, _ := parseConfig(nil, env(nil)); c.stdio {
		t.Error("stdio without -stdio")
	}
	// OAuth is refused, not silently dropped.
	err = run(context.Background(), []string{"-stdio"}, env(map[string]string{
		"MCP_REQUIRE_OAUTH": "true", "OAUTH_ISSUER": "https://issuer.example/auth/v1",
	}), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "MCP_REQUIRE_OAUTH") {
		t.Errorf("-stdio in OAuth mode: %v, want a refusal naming MCP_REQUIRE_OAUTH", err)
	}
}
