package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/faultserver"
)

func Example() {
	srv := httptest.NewServer(faultserver.New(faultserver.Options{}))
	defer srv.Close()

	c, err := client.New(srv.URL + "/mcp")
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	fare, err := c.EstimateFare(ctx, mcptypes.EstimateFareInput{
		Pickup: "Helensburgh Central Station", Dropoff: "Glasgow Airport",
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("£%.2f, %s tariff\n", fare.FareGBP, fare.Rate)

	saloon := mcptypes.StartBookingInputVehicleTypeSaloon
	six := int64(6)
	_, err = c.StartBooking(ctx, mcptypes.StartBookingInput{
		Pickup: "Helensburgh Central Station", Dropoff: "Glasgow Airport", VehicleType: saloon, Passengers: &six,
	})
	var te *client.ToolError
	if errors.As(err, &te) && te.Code == errcodes.CapacityExceeded {
		fmt.Println("refused:", te.Code)
	}
	// Output:
	// £62.40, day tariff
	// refused: CAPACITY_EXCEEDED
}
