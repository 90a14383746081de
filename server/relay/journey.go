package relay

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
)

// continueJourney checks the journey and its context and reports what it
// can know without the host's connector report: until POST
// /v1/session/connectors has reported this session (the journeys issue),
// every target is installation_unknown, and nothing changes.
func (s *Server) continueJourney(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	const tool = mcptypes.ToolContinueJourney
	var in mcptypes.ContinueJourneyInput
	if r := s.inputs.decode(tool, req.Params.Arguments, &in); r != nil {
		return s.refuse(ctx, tool, r)
	}
	act := actor(ctx, req)
	rc, r := s.callContext(act, &in.Context, false)
	if r != nil {
		return s.refuse(ctx, tool, r)
	}
	if in.JourneyID != rc.JourneyID {
		return s.refuse(ctx, tool, invalidContext(nil))
	}
	var cc mcptypes.ContinuationContext
	if in.JourneyContext != nil {
		cc = mcptypes.ContinuationContext(*in.JourneyContext)
	}
	return result(mcptypes.ContinueJourneyResult{
		Status:              mcptypes.ContinueJourneyResultStatusInstallationUnknown,
		ToConnector:         in.ToConnector,
		MissingFields:       []string{},
		ContinuationContext: cc,
		RelayContext:        rc,
	}, false)
}
