package main

import (
	"context"
	"io"
	"strings"
	"testing"
)

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
	}), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "MCP_REQUIRE_OAUTH") {
		t.Errorf("-stdio in OAuth mode: %v, want a refusal naming MCP_REQUIRE_OAUTH", err)
	}
}
