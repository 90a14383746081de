package relay_test

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/relay/sources"
)

// discard drops every record unformatted, as make bench's servers do at
// LOG_LEVEL=warn: the benchmarks here measure a call, not the access log.
var discard = slog.New(slog.DiscardHandler)

// fakeSource answers with fixed quotes or a fixed error, after an optional
// wait that ends with the context (a slow provider).
type fakeSource struct {
	quotes  []sources.Quote
	err     error
	block   bool          // wait for ctx.Done, then fail with its error
	waitFor chan struct{} // wait until closed before answering
	entered chan struct{} // closed... signalled on entry (buffered)
	calls   atomic.Int32
}

func (f *fakeSource) Quote(ctx context.Context, trip sources.Trip, rec sources.Recorder) ([]sources.Quote, error) {
	f.calls.Add(1)
	if f.entered != nil {
		select {
		case f.entered <- struct{}{}:
		default:
		}
	}
	start := time.Now()
	if f.waitFor != nil {
		select {
		case <-f.waitFor:
		case <-ctx.Done():
		}
	}
	if f.block {
		<-ctx.Done()
		rec(sources.Attempt{Operation: "GET /fake", Outcome: mcptypes.ProviderCallOutcomeTimeout, Duration: time.Since(start)})
		return nil, ctx.Err()
	}
	if f.err != nil {
		rec(sources.Attempt{Operation: "GET /fake", Outcome: mcptypes.ProviderCallOutcomeFailed, HTTPStatus: 503, Duration: time.Since(start)})
		return nil, f.err
	}
	rec(sources.Attempt{Operation: "GET /fake", Outcome: mcptypes.ProviderCallOutcomeOk, HTTPStatus: 200, Duration: time.Since(start), Options: len(f.quotes)})
	return f.quotes, nil
}

// quote is a USD estimate range in cents.
func quote(id string, low, high int64) sources.Quote {
	fees := true
	return sources.Quote{
		Product:  mcptypes.Product{ID: id, Name: id},
		Price:    mcptypes.Price{AmountMinor: low, AmountMinorMax: &high, Currency: "USD", Basis: mcptypes.PriceBasisEstimateRange, FeesIncluded: &fees},
		DataMode: mcptypes.RideOptionDataModeTest,
		Title:    "Fake " + id,
	}
}
