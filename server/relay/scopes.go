package relay

import "github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"

// Relay's OAuth scopes (RELAY.md, "Access, limits, retention"): in OAuth
// mode the front door refuses a tool, and the connectors route, whose scope
// the caller's token lacks with 403 insufficient_scope.
const (
	ScopeRidesRead     = "rides:read"
	ScopeRidesHandoff  = "rides:handoff"
	ScopeJourneysWrite = "journeys:write"
)

// toolScopes is the scope each of Relay's tools needs in OAuth mode.
var toolScopes = map[string]string{
	mcptypes.ToolSearchRides:           ScopeRidesRead,
	mcptypes.ToolCompareRides:          ScopeRidesRead,
	mcptypes.ToolResolveRide:           ScopeRidesRead,
	mcptypes.ToolGetRideBookingHandoff: ScopeRidesHandoff,
	mcptypes.ToolContinueJourney:       ScopeJourneysWrite,
}
