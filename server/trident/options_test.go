package trident_test

import (
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// TestOptions: New(nil) is the specification's public endpoint (at /mcp,
// with the root metadata document, its docs page, no rate limit), and a
// misconfigured endpoint stops at New with the variable to fix.
func TestOptions(t *testing.T) {
	ep, err := trident.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	if ep.Path != trident.Path || !ep.RootMetadata || ep.DocsPath != "/mcp-docs" || ep.RateLimit != nil || len(ep.Tools) != 3 {
		t.Errorf("New(nil): path %q, root metadata %v, docs %q, rate limit %v, %d tools", ep.Path, ep.RootMetadata, ep.DocsPath, ep.RateLimit, len(ep.Tools))
	}
	seed, err := trident.New(&trident.Options{RateLimit: "seed"})
	if err != nil || seed.RateLimit == nil || seed.RateLimit.Tools["start_booking"] != trident.SeedRateLimit().Tools["start_booking"] {
		t.Errorf("RATE_LIMIT=seed: %v, %+v", err, seed)
	}
	for _, tc := range []struct {
		opts trident.Options
		want string
	}{
		{trident.Options{RateLimit: "strict"}, "RATE_LIMIT"},
		{trident.Options{BookingBaseURL: "tridenttaxis.online"}, "BOOKING_BASE_URL"},
		{trident.Options{ResourceURL: "/mcp"}, "MCP_RESOURCE_URL"},
	} {
		if _, err := trident.New(&tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error naming %s", tc.opts, err, tc.want)
		}
	}
}
