package relay

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// The assistant-owned instructions every handoff carries. They are Relay's
// own words; provider text never enters them.
var handoffInstructions = []string{
	"Show the user the provider, the route and this destination before continuing; continue in the browser only with your own supported tools and the user's approval.",
	"In the provider experience, check pickup, destination, service coverage, price, ETA and vehicle selection, and the final terms before approval.",
	"Nothing has been booked or dispatched: the provider confirms the ride, and without its confirmation the outcome is unknown.",
}

func (s *endpoint) getRideBookingHandoff(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	const tool = mcptypes.ToolGetRideBookingHandoff
	var in mcptypes.GetRideBookingHandoffInput
	if r := s.inputs.decode(tool, req.Params.Arguments, &in); r != nil {
		return s.refuse(ctx, tool, r)
	}
	if in.Search != nil && in.Option != nil {
		return s.refuse(ctx, tool, invalidArguments(mcptypes.FieldProblem{Field: "/search", Reason: "search goes with provider, not with option"}))
	}
	act := actor(ctx, req)
	c, err := s.callContext(ctx, act, tool, in.Context, false)
	if err != nil {
		return s.fail(ctx, tool, err)
	}
	rc := c.rc
	var (
		p   registry.Provider
		out mcptypes.RideBookingHandoff
	)
	if in.Option != nil {
		if r := s.verifyOptions(act, rc, in.Context != nil, *in.Option); r != nil {
			return s.refuse(ctx, tool, r)
		}
		var ok bool
		if p, ok = s.registry.Lookup(in.Option.Provider); !ok {
			return s.refuse(ctx, tool, invalidOption(fmt.Errorf("provider %q left the registry", in.Option.Provider)))
		}
		out = s.optionHandoff(ctx, p, *in.Option)
		id := in.Option.OptionID
		out.OptionID = &id
	} else {
		var ok bool
		if p, ok = s.registry.Lookup(string(*in.Provider)); !ok {
			return s.refuse(ctx, tool, invalidArguments(mcptypes.FieldProblem{Field: "/provider", Reason: s.unknownProvider(string(*in.Provider))}))
		}
		var pickup, dropoff *mcptypes.Coordinates
		if in.Search != nil {
			pickup, dropoff = in.Search.Pickup, in.Search.Dropoff
		}
		if !p.OffersHandoff(pickup, dropoff) {
			return s.refuse(ctx, tool, invalidArguments(mcptypes.FieldProblem{Field: "/provider", Reason: fmt.Sprintf(
				"provider %q does not operate at this trip's pickup or dropoff (its coverage: %s, as stated at %s); use a provider from this trip's browser_handoffs", p.ID, strings.TrimSuffix(p.CoverageText(), "."), p.Coverage.Source)}))
		}
		out = entryHandoff(p, pickup, dropoff)
	}
	out.Status = mcptypes.RideBookingHandoffStatusOk
	out.Provider = p.ID
	out.Attribution = p.Attribution
	out.ProviderAccess = mcptypes.ProviderAccess{
		Enforcement: mcptypes.ProviderAccessEnforcementAdvisoryOnly,
		Decision:    mcptypes.ProviderAccessDecisionAssistantDiscretion,
		AgentPolicy: mcptypes.ProviderAccessAgentPolicy(p.AgentPolicy.Policy),
		Advisories:  advisories(p),
	}
	out.NextStep.Owner = mcptypes.NextStepOwnerAssistant
	out.NextStep.Instructions = append(out.NextStep.Instructions, handoffInstructions...)
	out.NextStep.Advisories = advisories(p)
	out.NativeExecutionAvailable = false
	out.ConfirmationState = mcptypes.RideBookingHandoffConfirmationStateNotStarted
	out.Completed = false
	out.RelayContext = rc
	var events []store.Event
	if in.Option != nil {
		// Handing an issued option off selects it.
		events = selections(*in.Option)
	}
	if err := s.record(ctx, act, c, append(events, handoffEvents(out)...)...); err != nil {
		return nil, err
	}
	return result(out, false)
}

// advisories are the provider's sourced restrictions; an unknown policy
// adds none.
func advisories(p registry.Provider) []mcptypes.Advisory {
	if p.AgentPolicy.Policy == "unknown" {
		return []mcptypes.Advisory{}
	}
	return append([]mcptypes.Advisory{}, p.AgentPolicy.Advisories...)
}

// entryHandoff is a provider path without an issued option: the coordinate
// link when the provider publishes one and both ends are given, else the
// entry page, else integration_required with no URL.
func entryHandoff(p registry.Provider, pickup, dropoff *mcptypes.Coordinates) mcptypes.RideBookingHandoff {
	var out mcptypes.RideBookingHandoff
	h, ok := p.Handoff(pickup, dropoff)
	if !ok {
		out.DestinationKind = mcptypes.RideBookingHandoffDestinationKindIntegrationRequired
		out.NextStep.Instructions = []string{"This provider has no consumer booking path Relay can hand off to; explain the boundary and do not invent a checkout link."}
		return out
	}
	out.URL = &h.URL
	out.FallbackURL = h.FallbackURL
	out.DestinationKind = mcptypes.RideBookingHandoffDestinationKind(h.DestinationKind)
	out.ParametersApplied = h.ParametersApplied
	if !h.ParametersApplied {
		out.NextStep.Instructions = []string{"This is the provider's entry page: the route is not carried, so enter pickup and destination there."}
	}
	return out
}

// optionHandoff is the path for an issued option: the provider's own
// prefilled booking link where it makes one for the option's product
// (Trident's start_booking), else the provider path for the option's route.
func (s *endpoint) optionHandoff(ctx context.Context, p registry.Provider, o mcptypes.RideOption) mcptypes.RideBookingHandoff {
	trip := s.tripOf(p, o)
	if o.ExceedsCapacity {
		// The provider's booking form checks the party against the class's
		// seats and would refuse it; the entry path, with why, instead.
		out := entryHandoff(p, &trip.Pickup, &trip.Dropoff)
		out.NextStep.Instructions = append(out.NextStep.Instructions, fmt.Sprintf("The party is larger than the %s's seats: the provider's booking form takes no more passengers than the vehicle seats, so review with the user whether to book several vehicles or a larger class.", o.Product.Name))
		return out
	}
	booker, _ := s.sources[p.ID].(sources.Booker)
	var product *registry.ProductEntry
	for i := range p.Products {
		if p.Products[i].ID == o.Product.ID && p.Products[i].BookingVehicleType != nil {
			product = &p.Products[i]
		}
	}
	if booker != nil && product != nil {
		cctx, cancel := context.WithTimeout(ctx, s.timeout)
		defer cancel()
		link, err := booker.BookingLink(cctx, trip, *product, func(sources.Attempt) {})
		if err == nil {
			return mcptypes.RideBookingHandoff{
				URL: &link, DestinationKind: mcptypes.RideBookingHandoffDestinationKindWeb,
				SelectionPreserved: true, ParametersApplied: true,
				NextStep: mcptypes.NextStep{Instructions: []string{"The link is the provider's prefilled booking form for this option, with its fare: the passenger completes and confirms the booking there."}},
			}
		}
		s.log.WarnContext(ctx, "relay: booking link failed; handing off the provider path instead", "provider", p.ID, "error", err.Error())
		out := entryHandoff(p, &trip.Pickup, &trip.Dropoff)
		out.NextStep.Instructions = append(out.NextStep.Instructions, "The provider's prefilled booking link could not be prepared just now; this is its general path, without the selected option.")
		return out
	}
	if p.Link == nil && len(p.Products) > 0 && p.EntryPage != "" {
		out := entryHandoff(p, nil, nil)
		out.NextStep.Instructions = append(out.NextStep.Instructions, fmt.Sprintf("The provider's booking form does not take the %s product: ask for it there or by phone.", o.Product.Name))
		return out
	}
	return entryHandoff(p, &trip.Pickup, &trip.Dropoff)
}
