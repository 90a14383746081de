package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/client/oauth"
	"github.com/tridenttaxis/trident-mcp/client/trident"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/faultserver"
)

// exampleEndpoint stands in for the endpoint a program would name, such as
// "https://tridenttaxis.online/mcp" or "http://localhost:8080/mcp" after
// `make run`. The examples call an in-process server answering with the
// seed's samples, so that `go test` checks their output.
var exampleEndpoint = sync.OnceValue(func() string {
	return httptest.NewServer(faultserver.New(faultserver.Options{})).URL + "/mcp"
})

// A fare quote, and a refusal recognised by its catalogue name.
func Example() {
	endpoint := exampleEndpoint() // e.g. "https://tridenttaxis.online/mcp"
	c, err := trident.New(endpoint)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	fare, err := c.EstimateFare(ctx, mcptypes.EstimateFareInput{
		Pickup: "Helensburgh Central Station", Dropoff: "Glasgow Airport",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("£%.2f, %s tariff\n", fare.FareGBP, fare.Rate)

	six := int64(6)
	_, err = c.StartBooking(ctx, mcptypes.StartBookingInput{
		Pickup: "Helensburgh Central Station", Dropoff: "Glasgow Airport",
		VehicleType: mcptypes.StartBookingInputVehicleTypeSaloon, Passengers: &six,
	})
	var te *client.ToolError
	if errors.As(err, &te) && te.Code == errcodes.CapacityExceeded {
		// Deterministic: ask the user for other input, do not retry.
		fmt.Println("refused:", te.Code)
	}
	// Output:
	// £62.40, day tariff
	// refused: CAPACITY_EXCEEDED
}

// WithProgress on one call asks the server to stream it and shows each
// step; the typed result arrives as usual.
func ExampleWithProgress() {
	c, err := trident.New(exampleEndpoint())
	if err != nil {
		log.Fatal(err)
	}
	six := int64(6)
	booking, err := c.StartBooking(context.Background(), mcptypes.StartBookingInput{
		Pickup: "Helensburgh Central Station", Dropoff: "Glasgow Airport",
		VehicleType: mcptypes.StartBookingInputVehicleTypeMpv, Passengers: &six,
	}, client.WithProgress(func(p client.Progress) {
		fmt.Println("progress:", p.Message)
	}))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("confirmed:", booking.Confirmed, "fare:", booking.Quote.FareGBP)
	// Output:
	// progress: step 1 of 2
	// progress: step 2 of 2
	// confirmed: false fare: 118
}

// CodeOf names any failure by the error catalogue; IsRetryable says whether
// the client's retry policy would have retried it (it already did).
func ExampleCodeOf() {
	c, err := trident.New(exampleEndpoint())
	if err != nil {
		log.Fatal(err)
	}
	_, err = c.Call(context.Background(), "get_service_infoo", nil, nil)
	fmt.Println(client.CodeOf(err), client.IsRetryable(err))
	var re *client.RPCError
	if errors.As(err, &re) {
		fmt.Println(re.Code, re.Message)
	}
	// Output:
	// METHOD_NOT_FOUND false
	// -32601 Method not found: no tool named 'get_service_infoo'
}

// In OAuth mode (MCP_REQUIRE_OAUTH=true on the server) a client sends the
// tokens that `trident login` saved, refreshes them before they expire,
// and after a 401 refreshes once and retries once. oauth.NewAuthorizer
// instead runs the whole authorization flow on the first 401.
func ExampleWithTokenSource() {
	path, err := oauth.DefaultPath() // where `trident login` keeps them
	if err != nil {
		path = filepath.Join(".", "tokens.json")
	}
	tokens := oauth.NewSource(oauth.NewFileStore(path))
	c, err := trident.New("https://tridenttaxis.online/mcp", client.WithTokenSource(tokens))
	if err != nil {
		log.Fatal(err)
	}
	info, err := c.GetServiceInfo(context.Background(), mcptypes.GetServiceInfoInput{})
	if errors.Is(err, oauth.ErrReconsentRequired) || errors.Is(err, oauth.ErrNoTokens) {
		log.Fatal("sign in again: trident login https://tridenttaxis.online/mcp")
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(info.Brand)
}
