package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/mcptypes"
)

// realEndpoint returns the MCP endpoint of the real server: the one named by
// TRIDENT_TEST_ENDPOINT, or one built from ./server/cmd/trident-mcp and
// started on loopback for this test binary. It fails when neither works.
func realEndpoint(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test; skipped with -short")
	}
	if ep := os.Getenv("TRIDENT_TEST_ENDPOINT"); ep != "" {
		return ep
	}
	realOnce.Do(startRealServer)
	if realErr != nil {
		t.Fatalf("no real server: %v (set TRIDENT_TEST_ENDPOINT or fix ./server/cmd/trident-mcp)", realErr)
	}
	return realURL
}

var (
	realOnce sync.Once
	realURL  string
	realErr  error
	realCmd  *exec.Cmd
)

func TestMain(m *testing.M) {
	code := m.Run()
	if realCmd != nil && realCmd.Process != nil {
		realCmd.Process.Kill()
		realCmd.Wait()
	}
	os.Exit(code)
}

func startRealServer() {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	if _, err := os.Stat(filepath.Join(root, "server", "cmd", "trident-mcp")); err != nil {
		realErr = fmt.Errorf("./server/cmd/trident-mcp does not exist yet")
		return
	}
	bin := filepath.Join(os.TempDir(), fmt.Sprintf("trident-mcp-client-it-%d", os.Getpid()))
	build := exec.Command("go", "build", "-o", bin, "./server/cmd/trident-mcp")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		realErr = fmt.Errorf("building ./server/cmd/trident-mcp: %v\n%s", err, out)
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		realErr = err
		return
	}
	addr := ln.Addr().String()
	ln.Close()
	base := "http://" + addr
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "ADDR="+addr, "PUBLIC_BASE_URL="+base, "MCP_REQUIRE_OAUTH=false",
		// The seed's samples were priced by day and give no departAt.
		"FARE_CLOCK=2025-06-18T09:00:00Z")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		realErr = err
		return
	}
	realCmd = cmd
	// Readiness: poll /healthz against a deadline (not a sleep standing in
	// for synchronisation; the server is ready when it answers).
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				realURL = base + "/mcp"
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	realErr = fmt.Errorf("the server at %s did not answer /healthz within 20s", base)
}

func TestIntegrationRealServer(t *testing.T) {
	ep := realEndpoint(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, hs := range []client.Handshake{client.HandshakeAuto, client.HandshakeAlways} {
		t.Run(fmt.Sprintf("handshake %d", hs), func(t *testing.T) {
			c, err := client.New(ep, client.WithHandshake(hs))
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
