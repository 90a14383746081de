package mcphttp

import "testing"

func TestProtocolVersionsIsACopy(t *testing.T) {
	v := ProtocolVersions()
	if len(v) == 0 || v[0] != supportedProtocolVersions[0] {
		t.Fatalf("ProtocolVersions() = %q, want %q", v, supportedProtocolVersions)
	}
	v[0] = "1999-01-01"
	if supportedProtocolVersions[0] == "1999-01-01" {
		t.Error("ProtocolVersions hands out the front door's own slice")
	}
}
