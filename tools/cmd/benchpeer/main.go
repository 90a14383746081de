// Command benchpeer is the comparison `make bench` draws: the same three
// Trident tools served by github.com/mark3labs/mcp-go in stateless
// Streamable HTTP mode, or (-floor) a bare net/http handler that answers
// every POST with one canned estimate_fare reply. It exists only for the
// benchmark and is never deployed.
//
// The peer reuses this project's fare engine, embedded geocoder and router
// and the contracts' input schemas (validated by mcp-go's own
// WithInputSchemaValidation), so that only the MCP layer differs from
// trident-mcp. With -oauth-issuer it sits behind the same
// [auth.Verifier.Middleware] as trident-mcp's OAuth mode.
//
//	go run ./tools/cmd/benchpeer -addr 127.0.0.1:0
//
// It prints "listening on http://HOST:PORT" on stdout once it serves.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	tridentcontracts "github.com/tridenttaxis/trident-mcp/contracts/trident"
	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/trident/fare"
	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address (loopback only)")
	floor := flag.Bool("floor", false, "serve the canned-reply floor instead of the mcp-go peer")
	reply := flag.String("reply", "", "the floor's reply body (JSON); required with -floor")
	clock := flag.String("clock", "", "RFC 3339 instant the tariff prices at (like trident-mcp's FARE_CLOCK)")
	issuer := flag.String("oauth-issuer", "", "require bearer tokens from this issuer (trident-mcp's OAuth mode)")
	resource := flag.String("resource-url", "", "the resource the tokens must be bound to (with -oauth-issuer)")
	flag.Parse()
	if err := run(*addr, *floor, *reply, *clock, *issuer, *resource); err != nil {
		fmt.Fprintln(os.Stderr, "benchpeer:", err)
		os.Exit(1)
	}
}

func run(addr string, floor bool, reply, clock, issuer, resource string) error {
	var h http.Handler
	if floor {
		if reply == "" {
			return errors.New("-floor needs -reply")
		}
		h = floorHandler([]byte(reply))
	} else {
		now := time.Now
		if clock != "" {
			at, err := time.Parse(time.RFC3339, clock)
			if err != nil {
				return fmt.Errorf("-clock: %w", err)
			}
			now = func() time.Time { return at }
		}
		var err error
		if h, err = peerHandler(now); err != nil {
			return err
		}
		if issuer != "" {
			v, err := auth.NewVerifier(auth.Config{Issuer: issuer, ResourceURL: resource, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				return err
			}
			defer v.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := v.WaitReady(ctx); err != nil {
				return err
			}
			h = v.Middleware(h)
		}
	}

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if !ln.Addr().(*net.TCPAddr).IP.IsLoopback() {
		ln.Close()
		return fmt.Errorf("%s is not a loopback address", addr)
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); hs.Close() }()
	fmt.Printf("listening on http://%s\n", ln.Addr())
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// floorHandler answers every request with reply, reading the body first as
// a server must.
func floorHandler(reply []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		// Stated, as trident-mcp states it: net/http would send a reply
		// longer than its 2 KB buffer chunked (Relay's ~18 KB search).
		w.Header().Set("Content-Length", strconv.Itoa(len(reply)))
		w.Write(reply)
	})
}

// peerHandler serves the peer's MCP endpoint at /mcp, stateless.
func peerHandler(now func() time.Time) (http.Handler, error) {
	srv, err := newPeer(now)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpserver.NewStreamableHTTPServer(srv, mcpserver.WithStateLess(true)))
	return mux, nil
}

// peer is the three tools over the project's engine.
type peer struct {
	tariff   *fare.Tariff
	geocoder geo.Geocoder
	router   geo.Router
}

func newPeer(now func() time.Time) (*mcpserver.MCPServer, error) {
	g, err := geo.NewEmbeddedGeocoder()
	if err != nil {
		return nil, err
	}
	p := &peer{tariff: fare.Default().WithClock(now), geocoder: g, router: geo.NewEmbeddedRouter()}
	manifest, err := tridentcontracts.Set.Manifest()
	if err != nil {
		return nil, err
	}
	handlers := map[string]mcpserver.ToolHandlerFunc{
		mcptypes.ToolEstimateFare:   p.estimateFare,
		mcptypes.ToolStartBooking:   p.startBooking,
		mcptypes.ToolGetServiceInfo: p.getServiceInfo,
	}
	s := mcpserver.NewMCPServer(manifest.Server.Name, manifest.Server.Version,
		mcpserver.WithToolCapabilities(false), mcpserver.WithInputSchemaValidation())
	for _, ct := range manifest.Tools {
		in, err := ct.Input()
		if err != nil {
			return nil, err
		}
		out, err := ct.Output()
		if err != nil {
			return nil, err
		}
		t := mcp.NewToolWithRawSchema(ct.Name, ct.Description, in)
		t.RawOutputSchema = out
		h := handlers[ct.Name]
		if h == nil {
			return nil, fmt.Errorf("no handler for tool %q", ct.Name)
		}
		s.AddTool(t, h)
	}
	return s, nil
}

// quote geocodes, routes and prices one trip.
func (p *peer) quote(ctx context.Context, pickup, dropoff, vehicle string, meet bool, passengers int) (fare.Quote, fare.Trip, error) {
	from, err := p.geocoder.Geocode(ctx, pickup)
	if err != nil {
		return fare.Quote{}, fare.Trip{}, err
	}
	to, err := p.geocoder.Geocode(ctx, dropoff)
	if err != nil {
		return fare.Quote{}, fare.Trip{}, err
	}
	route, err := p.router.Route(ctx, from, to)
	if err != nil {
		return fare.Quote{}, fare.Trip{}, err
	}
	trip := fare.Trip{
		Vehicle:         vehicle,
		DistanceMiles:   p.tariff.RoundDistanceMiles(route.DistanceMeters),
		DurationSeconds: p.tariff.RoundDurationSeconds(route.DurationSeconds),
		Pickup:          fare.Endpoint{Lat: from.Lat, Lon: from.Lon, Airport: from.IsAirport()},
		Dropoff:         fare.Endpoint{Lat: to.Lat, Lon: to.Lon, Airport: to.IsAirport()},
		MeetAndGreet:    meet,
		Passengers:      passengers,
	}
	q, err := p.tariff.Quote(trip)
	return q, trip, err
}

func summary(q fare.Quote, t fare.Trip) string {
	return fmt.Sprintf("%s · %s miles · %s min · %s tariff", fare.FormatGBP(q.FarePence),
		strconv.FormatFloat(t.DistanceMiles, 'f', -1, 64), strconv.FormatFloat(t.DurationSeconds/60, 'f', 0, 64), q.Band)
}

func (p *peer) estimateFare(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in mcptypes.EstimateFareInput
	if err := req.BindArguments(&in); err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	vehicle := ""
	if in.VehicleType != nil {
		vehicle = string(*in.VehicleType)
	}
	q, t, err := p.quote(ctx, in.Pickup, in.Dropoff, vehicle, in.MeetAndGreet != nil && *in.MeetAndGreet, 0)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	out := mcptypes.EstimateFareOutput{
		FareGBP:             q.FareGBP,
		DistanceMiles:       t.DistanceMiles,
		DurationSeconds:     t.DurationSeconds,
		Rate:                mcptypes.EstimateFareOutputRate(q.Band),
		AirportSurchargeGBP: q.AirportSurchargeGBP,
		TariffVersion:       q.TariffVersion,
		AppliedRules:        q.AppliedRules,
	}
	return mcp.NewToolResultStructured(out, summary(q, t)), nil
}

func (p *peer) startBooking(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in mcptypes.StartBookingInput
	if err := req.BindArguments(&in); err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	passengers := 0
	if in.Passengers != nil {
		passengers = int(*in.Passengers)
	}
	meet := in.MeetAndGreet != nil && *in.MeetAndGreet
	q, t, err := p.quote(ctx, in.Pickup, in.Dropoff, string(in.VehicleType), meet, passengers)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	link := "https://tridenttaxis.online/book?" + url.Values{
		"pickup": {in.Pickup}, "dropoff": {in.Dropoff}, "vehicleType": {string(in.VehicleType)},
		"fare": {fmt.Sprintf("%d.%02d", q.FarePence/100, q.FarePence%100)},
	}.Encode()
	out := mcptypes.StartBookingOutput{
		BookingURL:              link,
		RequiresPassengerAction: true,
		Quote: mcptypes.Quote{
			FareGBP: q.FareGBP, DistanceMiles: t.DistanceMiles, DurationSeconds: t.DurationSeconds,
			Rate: mcptypes.QuoteRate(q.Band), VehicleType: mcptypes.QuoteVehicleType(in.VehicleType), TariffVersion: q.TariffVersion,
		},
		Prefilled: &mcptypes.Prefilled{
			Pickup: in.Pickup, Dropoff: in.Dropoff, VehicleType: mcptypes.PrefilledVehicleType(in.VehicleType),
			DepartAt: in.DepartAt, MeetAndGreet: meet,
		},
	}
	return mcp.NewToolResultStructured(out, "Booking session ready — fare "+summary(q, t)+"\n"+link), nil
}

func (p *peer) getServiceInfo(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	info := p.tariff.ServiceInfo()
	out := mcptypes.GetServiceInfoOutput{
		Brand: info.Brand, Area: info.Area, Tariffs: info.Tariffs, BookingURL: "https://tridenttaxis.online",
		Surcharges: mcptypes.Surcharges{
			PreBookingGBP:              info.Surcharges.PreBookingGBP,
			AirportPickupOrDropGBP:     info.Surcharges.AirportPickupOrDropGBP,
			AirportMeetAndGreetGBP:     info.Surcharges.AirportMeetAndGreetGBP,
			EightSeaterLocalMultiplier: info.Surcharges.EightSeaterLocalMultiplier,
		},
	}
	for _, v := range info.Vehicles {
		out.Vehicles = append(out.Vehicles, mcptypes.Vehicle{ID: v.ID, MaxPassengers: int64(v.MaxPassengers)})
	}
	return mcp.NewToolResultStructured(out, info.Brand+" · "+info.Area), nil
}
