package relay

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/journey"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// continueJourney answers from the connector registry and the session's
// latest connector report (POST /v1/session/connectors) through
// [journey.Registry.Decide]: ready with next_action, a proposal naming the
// missing fields, or the connector's own status. Only ready moves the
// journey on (its merged context is saved); every other answer changes
// nothing, and nothing is ever installed.
func (s *endpoint) continueJourney(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	const tool = mcptypes.ToolContinueJourney
	var in mcptypes.ContinueJourneyInput
	if r := s.inputs.decode(tool, req.Params.Arguments, &in); r != nil {
		return s.refuse(ctx, tool, r)
	}
	given, err := fieldsOf(in.JourneyContext, "journey_context")
	if err != nil {
		return s.fail(ctx, tool, err)
	}
	act := actor(ctx, req)
	c, err := s.callContext(ctx, act, tool, &in.Context, false)
	if err != nil {
		return s.fail(ctx, tool, err)
	}
	if in.JourneyID != c.rc.JourneyID {
		return s.refuse(ctx, tool, invalidContext(fmt.Errorf("journey_id %s is not the context's journey", in.JourneyID)))
	}
	fields, err := journey.Combine(given, "journey_context", c.fields, "journey_context")
	if err != nil {
		return s.fail(ctx, tool, fieldRefusal(err, ""))
	}
	report, err := s.store.ConnectorReport(ctx, act, c.rc.SessionID)
	if err != nil {
		return nil, fmt.Errorf("relay: reading the connector report: %w", err)
	}
	// nil until the host reports for the session: installation_unknown.
	var reported map[string]journey.Reported
	if !report.ReportedAt.IsZero() {
		reported = make(map[string]journey.Reported, len(report.Connectors))
	}
	for _, r := range report.Connectors {
		reported[r.ID] = journey.Reported{Installed: r.Installed, Enabled: r.Enabled, Authorized: r.Authorized, Available: r.Available}
	}
	to := string(in.ToConnector)
	d, err := s.connectors.Decide(to, reported, fields)
	if errors.Is(err, journey.ErrUnknownConnector) {
		return s.refuse(ctx, tool, invalidArguments(mcptypes.FieldProblem{Field: "/to_connector", Reason: fmt.Sprintf("unknown connector %q: use one of %s", to, strings.Join(s.connectorIDs(), ", "))}))
	}
	if err != nil {
		return s.fail(ctx, tool, fieldRefusal(err, ""))
	}
	cc, err := continuation(fields)
	if err != nil {
		return s.fail(ctx, tool, err)
	}
	out := mcptypes.ContinueJourneyResult{
		Status:              mcptypes.ContinueJourneyResultStatus(d.Status),
		ToConnector:         to,
		Reason:              d.Reason,
		MissingFields:       append([]string{}, d.MissingFields...),
		ContinuationContext: cc,
		RelayContext:        c.rc,
	}
	if d.Step != nil {
		st := &mcptypes.SuggestedStep{Action: mcptypes.SuggestedStepAction(d.Step.Action), Connector: d.Step.Connector, Message: d.Step.Message}
		if d.Step.Tool != "" {
			st.Tool = &d.Step.Tool
		}
		out.SuggestedStep = st
	}
	if d.NextAction != nil {
		out.NextAction = &mcptypes.NextAction{Connector: d.NextAction.Connector, Tool: d.NextAction.Tool, Arguments: d.NextAction.Arguments}
	}
	// Only a journey that is ready moves on: a proposal saves nothing.
	var moved *journey.Fields
	if d.Status == journey.StatusReady {
		moved = &fields
	}
	if err := s.saveAndRecord(ctx, act, c, moved, store.Event{Kind: store.EventRequest, Tool: tool, Status: string(d.Status)}); err != nil {
		return nil, err
	}
	return result(out, false)
}

// connectorIDs are the connector registry's ids, in registry order: what a
// refusal of an unknown to_connector offers instead.
func (s *endpoint) connectorIDs() []string {
	var out []string
	for _, c := range s.connectors.Connectors() {
		out = append(out, c.ID)
	}
	return out
}
