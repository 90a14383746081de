package geo

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/internal/fakegeo"
)

// BenchmarkGeocodeCached is a repeated Nominatim lookup answered from the
// cache: the local screening plus a cache hit, no request.
func BenchmarkGeocodeCached(b *testing.B) {
	fake := fakegeo.NewNominatim()
	defer fake.Close()
	n := NewNominatim(fake.URL, WithMinInterval(0))
	ctx := context.Background()
	if _, err := n.Geocode(ctx, "12 Sinclair Street, Helensburgh"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := n.Geocode(ctx, "12 Sinclair Street, Helensburgh"); err != nil {
			b.Fatal(err)
		}
	}
	if got := fake.Requests(); got != 1 {
		b.Fatalf("%d requests, want 1", got)
	}
}

// BenchmarkRouteBreakerOpen is what a call costs while the breaker holds a
// failing OSRM off: a refusal, no request.
func BenchmarkRouteBreakerOpen(b *testing.B) {
	fake := fakegeo.NewOSRM()
	defer fake.Close()
	fake.SetFault(fakegeo.ServerError)
	o := NewOSRM(fake.URL, WithBreaker(1, time.Hour), WithLogger(slog.New(slog.DiscardHandler)))
	ctx := context.Background()
	_, _ = o.Route(ctx, helensburghCentral, glasgowAirport)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := o.Route(ctx, helensburghCentral, glasgowAirport); !errors.Is(err, ErrUnavailable) {
			b.Fatal(err)
		}
	}
	if got := fake.Requests(); got != 1 {
		b.Fatalf("%d requests, want 1", got)
	}
}
