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

// The real server speaks every revision the client does; the client
// negotiates 2026-07-28 by default, and keeps speaking the older ones when
// told to. Argument errors are the one answer that differs: -32602 up to
// 2025-06-18, a tool result from 2025-11-25 on (SEP-1303).
func TestIntegrationRealServer(t *testing.T) {
	ep := realEndpoint(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct {
		offer, want string // the revision offered ("" for the default) and the one spoken
	}{
		{"", client.LatestProtocolVersion},
		{client.Revision20251125, client.Revision20251125},
		{client.DocumentedProtocolVersion, client.DocumentedProtocolVersion},
	} {
		for _, hs := range []client.Handshake{client.HandshakeAuto, client.HandshakeAlways} {
			t.Run(fmt.Sprintf("%s/handshake %d", tc.want, hs), func(t *testing.T) {
				opts := []client.Option{client.WithHandshake(hs)}
				if tc.offer != "" {
					opts = append(opts, client.WithProtocolVersion(tc.offer))
				}
				c, err := trident.New(ep, opts...)
				if err != nil {
					t.Fatal(err)
				}
				testRealServer(ctx, t, c)
				if got := c.ProtocolVersion(); got != tc.want {
					t.Errorf("ProtocolVersion() = %q, want %q", got, tc.want)
				}

				_, err = c.EstimateFare(ctx, mcptypes.EstimateFareInput{Pickup: "ab", Dropoff: "Glasgow Airport"})
				var re *client.RPCError
				var te *client.ToolError
				switch {
				case tc.want == client.DocumentedProtocolVersion:
					if !errors.As(err, &re) || re.Code != -32602 || re.Name != errcodes.InvalidArguments || !strings.HasPrefix(re.Message, "Invalid params: pickup") {
						t.Errorf("short pickup: error = %v, want -32602 INVALID_ARGUMENTS on pickup", err)
					}
				default:
					if !errors.As(err, &te) || te.Code != errcodes.InvalidArguments || !strings.HasPrefix(te.Text, "Invalid params: pickup") {
						t.Errorf("short pickup: error = %v, want a tool error INVALID_ARGUMENTS on pickup", err)
					}
				}
			})
		}
	}
}

func testRealServer(ctx context.Context, t *testing.T, c *trident.Client) {
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
}
