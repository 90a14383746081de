package client_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/client/trident"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// realEndpoint returns the MCP endpoint of the real server: the one named by
// TRIDENT_TEST_ENDPOINT, or one built from ./server/cmd/trident-mcp and
// started on loopback for this test.
func realEndpoint(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test; skipped with -short")
	}
	if ep := os.Getenv("TRIDENT_TEST_ENDPOINT"); ep != "" {
		return ep
	}
	return testserver.Start(t, testserver.Build(t), testserver.FreeAddr(t)) + "/mcp"
}

func TestIntegrationRealServer(t *testing.T) {
	ep := realEndpoint(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, hs := range []client.Handshake{client.HandshakeAuto, client.HandshakeAlways} {
		t.Run(fmt.Sprintf("handshake %d", hs), func(t *testing.T) {
			c, err := trident.New(ep, client.WithHandshake(hs))
			if err != nil {
				t.Fatal(err)
			}
			tools, err := c.ListTools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Name)
			}
			if strings.Join(names, ",") != strings.Join(mcptypes.ToolNames, ",") {
				t.Errorf("tools = %v, want %v", names, mcptypes.ToolNames)
			}

			fare, err := c.EstimateFare(ctx, helensburghToAirport)
			if err != nil {
				t.Fatal(err)
			}
			if fare.FareGBP != 62.4 || fare.TariffVersion != "argyll-2024-04" {
				t.Errorf("EstimateFare = %+v, want the seed's £62.40", fare)
			}

			var steps int
			booking, err := c.StartBooking(ctx, mcptypes.StartBookingInput{
				Pickup: "Helensburgh Central Station", Dropoff: "Glasgow Airport",
				VehicleType: mcptypes.StartBookingInputVehicleTypeMpv, Passengers: ptr(int64(6)), MeetAndGreet: ptr(true),
			}, client.WithProgress(func(client.Progress) { steps++ }))
			if err != nil {
				t.Fatal(err)
			}
			if booking.Confirmed || !booking.RequiresPassengerAction || booking.Quote.FareGBP != 118 {
				t.Errorf("StartBooking = %+v, want the seed's unconfirmed £118 quote", booking)
			}
			if steps == 0 {
				t.Error("start_booking with a progress token streamed no notifications/progress frame")
			}

			_, err = c.StartBooking(ctx, mcptypes.StartBookingInput{
				Pickup: "Helensburgh Central Station", Dropoff: "Glasgow Airport",
				VehicleType: mcptypes.StartBookingInputVehicleTypeSaloon, Passengers: ptr(int64(6)),
			})
			if client.CodeOf(err) != errcodes.CapacityExceeded {
				t.Errorf("capacity: error = %v, want CAPACITY_EXCEEDED", err)
			}

			_, err = c.Call(ctx, "get_service_infoo", nil, nil)
			var re *client.RPCError
			if !errors.As(err, &re) || re.Code != -32601 || re.Message != "Method not found: no tool named 'get_service_infoo'" {
				t.Errorf("unknown tool: error = %v, want the seed's -32601", err)
			}

			_, err = c.EstimateFare(ctx, mcptypes.EstimateFareInput{Pickup: "ab", Dropoff: "Glasgow Airport"})
			if !errors.As(err, &re) || re.Code != -32602 || re.Name != errcodes.InvalidArguments || !strings.HasPrefix(re.Message, "Invalid params: pickup") {
				t.Errorf("short pickup: error = %v, want -32602 INVALID_ARGUMENTS on pickup", err)
			}
		})
	}
}
