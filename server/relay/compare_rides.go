package relay

import (
	"context"
	"fmt"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/signing"
	"github.com/tridenttaxis/trident-mcp/server/relay/store"
)

// verifyOptions checks every option against the call's context. An option
// only verifies under the session and journey it was issued in, so a call
// without a context can verify none.
func (s *endpoint) verifyOptions(act string, rc mcptypes.RelayContext, given bool, opts ...mcptypes.RideOption) *refusal {
	b := signing.Binding{Actor: act, SessionID: rc.SessionID, JourneyID: rc.JourneyID}
	for i, o := range opts {
		if !given {
			return invalidOption(fmt.Errorf("option %d: %w, so its session and journey cannot match", i, errNoContext))
		}
		if err := s.verifyOption(b, o); err != nil {
			return invalidOption(fmt.Errorf("option %d (%s): %w", i, o.OptionID, err))
		}
	}
	return nil
}

// groupKey is what makes two prices comparable.
type groupKey struct {
	currency string
	basis    mcptypes.PriceBasis
	fees     string // "true", "false" or "null"
	mode     mcptypes.RideOptionDataMode
	scope    string
}

func boolKey(b *bool) string {
	if b == nil {
		return "null"
	}
	return fmt.Sprint(*b)
}

func (s *endpoint) compareRides(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	const tool = mcptypes.ToolCompareRides
	var in mcptypes.CompareRidesInput
	if r := s.inputs.decode(tool, req.Params.Arguments, &in); r != nil {
		return s.refuse(ctx, tool, r)
	}
	act := actor(ctx, req)
	c, err := s.callContext(ctx, act, tool, in.Context, false)
	if err != nil {
		return s.fail(ctx, tool, err)
	}
	rc := c.rc
	if r := s.verifyOptions(act, rc, in.Context != nil, in.Options...); r != nil {
		return s.refuse(ctx, tool, r)
	}
	// A comparison is not a selection (the specification's signals are
	// request, selection, handoff and outcome): it is recorded as the
	// request it is, and a selection only when an option is resolved or
	// handed off.
	if err := s.record(ctx, act, c, store.Event{Kind: store.EventRequest, Tool: tool, Status: string(mcptypes.CompareRidesResultStatusOk)}); err != nil {
		return nil, err
	}
	sortBy := mcptypes.CompareRidesResultSortByProviderOrder
	if in.SortBy != nil {
		sortBy = mcptypes.CompareRidesResultSortBy(*in.SortBy)
	}
	out := mcptypes.CompareRidesResult{Status: mcptypes.CompareRidesResultStatusOk, SortBy: sortBy, Groups: []mcptypes.ComparisonGroup{}, RelayContext: rc}
	index := map[groupKey]int{}
	for _, o := range in.Options {
		k := groupKey{o.Price.Currency, o.Price.Basis, boolKey(o.Price.FeesIncluded), o.DataMode, o.RequestScope}
		i, ok := index[k]
		if !ok {
			i = len(out.Groups)
			index[k] = i
			out.Groups = append(out.Groups, mcptypes.ComparisonGroup{
				Currency: o.Price.Currency, Basis: mcptypes.ComparisonGroupBasis(o.Price.Basis), FeesIncluded: o.Price.FeesIncluded,
				DataMode: mcptypes.ComparisonGroupDataMode(o.DataMode), RequestScope: o.RequestScope,
			})
		}
		out.Groups[i].Options = append(out.Groups[i].Options, o)
	}
	if sortBy == mcptypes.CompareRidesResultSortByPrice {
		// Price order inside a group only; ties keep provider order. The
		// registry's commission is never consulted.
		for _, g := range out.Groups {
			sort.SliceStable(g.Options, func(i, j int) bool { return priceLess(g.Options[i].Price, g.Options[j].Price) })
		}
	}
	return result(out, false)
}

// priceLess orders by the low end, then by the high end (a range with no
// high end counts as its low end).
func priceLess(a, b mcptypes.Price) bool {
	if a.AmountMinor != b.AmountMinor {
		return a.AmountMinor < b.AmountMinor
	}
	return high(a) < high(b)
}

func high(p mcptypes.Price) int64 {
	if p.AmountMinorMax != nil {
		return *p.AmountMinorMax
	}
	return p.AmountMinor
}
