package main_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// TestConformanceFixturesOnlyWhenAsked mounts the conformance fixtures
// endpoint at /mcp/conformance with CONFORMANCE_FIXTURES=true, beside the
// two real endpoints, and not without it: make run and production never
// serve its fake tools.
func TestConformanceFixturesOnlyWhenAsked(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	bin := testserver.Build(t)
	off := testserver.Run(t, bin, testserver.FreeAddr(t))
	if status, _, _ := post(t, off.Base+"/mcp/conformance", list); status != http.StatusNotFound {
		t.Errorf("by default /mcp/conformance answers %d, want 404", status)
	}
	on := testserver.Run(t, bin, testserver.FreeAddr(t), "CONFORMANCE_FIXTURES=true")
	status, _, reply := post(t, on.Base+"/mcp/conformance", list)
	if status != http.StatusOK || !strings.Contains(reply, `"name":"test_simple_text"`) || !strings.Contains(reply, `"name":"slow_compute"`) {
		t.Errorf("with CONFORMANCE_FIXTURES=true: %d %.300s, want the fixtures' tools", status, reply)
	}
	if _, _, reply := post(t, on.Base+"/mcp", list); strings.Contains(reply, "test_simple_text") || !strings.Contains(reply, "estimate_fare") {
		t.Errorf("/mcp beside the fixtures lists %.300s, want only Trident's tools", reply)
	}
	if logs := on.Logs(); !strings.Contains(logs, "conformance fixtures mounted") {
		t.Errorf("mounting the fixtures is not logged:\n%.600s", logs)
	}
}
