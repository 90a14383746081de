package relay

import (
	"context"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/registry"
	"github.com/tridenttaxis/trident-mcp/server/relay/signing"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
)

func (s *endpoint) resolveRide(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	const tool = mcptypes.ToolResolveRide
	var in mcptypes.ResolveRideInput
	if r := s.inputs.decode(tool, req.Params.Arguments, &in); r != nil {
		return s.refuse(ctx, tool, r)
	}
	act := actor(ctx, req)
	c, err := s.callContext(ctx, act, tool, in.Context, false)
	if err != nil {
		return s.fail(ctx, tool, err)
	}
	rc := c.rc
	if r := s.verifyOptions(act, rc, in.Context != nil, in.Option); r != nil {
		return s.refuse(ctx, tool, r)
	}
	if err := s.record(ctx, act, c, selections(in.Option)...); err != nil {
		return nil, err
	}
	p, ok := s.registry.Lookup(in.Option.Provider)
	if !ok || p.Kind != "api" {
		return s.refuse(ctx, tool, invalidOption(fmt.Errorf("provider %q is no longer an api provider", in.Option.Provider)))
	}
	src := s.sources[p.ID]
	switch {
	case src == nil:
		return s.refuse(ctx, tool, &refusal{out: mcptypes.Refusal{
			Status: mcptypes.RefusalStatusCredentialsRequired, Provider: &p.ID,
			Message: message(errcodes.RelayCredentialsRequired, "provider", p.ID),
		}})
	case p.API.Authorized != nil && !*p.API.Authorized:
		return s.refuse(ctx, tool, &refusal{out: mcptypes.Refusal{
			Status: mcptypes.RefusalStatusApiAuthorizationRequired, Provider: &p.ID,
			Message: message(errcodes.RelayApiAuthorizationRequired, "provider", p.ID),
		}})
	}
	if wait := s.coolingDown(ctx, p.ID); wait > 0 {
		n := ceilSeconds(wait)
		return s.refuse(ctx, tool, &refusal{out: mcptypes.Refusal{
			Status: mcptypes.RefusalStatusRateLimited, Provider: &p.ID, RetryAfterSeconds: &n,
			Message: message(errcodes.RelayRateLimited, "provider", p.ID, "retry_after_seconds", strconv.FormatInt(n, 10)),
		}})
	}

	trip := s.tripOf(p, in.Option)
	trip.ProductID = in.Option.Product.ID
	// Ask for the selected product only, where the registry lists products.
	if len(trip.Products) > 0 {
		var only []registry.ProductEntry
		for _, pr := range trip.Products {
			if pr.ID == in.Option.Product.ID {
				only = append(only, pr)
			}
		}
		trip.Products = only
	}
	out := mcptypes.ResolveRideResult{Status: mcptypes.ResolveRideResultStatusPartial, ProviderCalls: []mcptypes.ProviderCall{}, Errors: []mcptypes.ProviderError{}, RelayContext: rc}
	answers, calls := s.query(ctx, []selected{{p: p, src: src}}, trip)
	out.ProviderCalls = calls
	a := answers[0]
	for _, q := range a.quotes {
		if q.Product.ID != in.Option.Product.ID {
			continue
		}
		o, err := s.issue(signing.Binding{Actor: act, SessionID: rc.SessionID, JourneyID: rc.JourneyID}, p, trip, q)
		if err != nil {
			return nil, fmt.Errorf("relay: signing an option: %w", err)
		}
		out.Option, out.Status = &o, mcptypes.ResolveRideResultStatusOk
		break
	}
	if out.Option == nil {
		// A failed refresh returns no price: the old one is not confirmed.
		e := a.err
		if e == nil {
			e = &sources.Error{Code: mcptypes.ProviderErrorCodeRefused, Message: "the provider no longer offers this product for the trip"}
		}
		out.Errors = append(out.Errors, providerError(p.ID, e))
	}
	return result(out, false)
}
