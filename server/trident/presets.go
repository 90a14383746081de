package trident

import "github.com/tridenttaxis/trident-mcp/server/limits"

// SeedRateLimit is the specification's "Recommended client behavior" table
// made into server-side caps (RATE_LIMIT=seed): estimate_fare ≤30/min and
// ≤2 concurrent, start_booking ≤10/min per end user, get_service_info
// generous (120/min: the specification asks clients to cache it for a day,
// so this only stops a runaway loop). The specification enforces none yet
// and promises a limiter that answers 429 with Retry-After; the endpoint
// hands this to the front door in its mcphttp.Endpoint.
func SeedRateLimit() limits.Policy {
	return limits.Policy{Tools: map[string]limits.Rule{
		"estimate_fare":    {PerMinute: 30, Concurrent: 2},
		"start_booking":    {PerMinute: 10, ByEndUser: true},
		"get_service_info": {PerMinute: 120},
	}}
}
