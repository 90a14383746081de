// Command fake-trident-mcp serves the conformance test double
// (internal/brokenserver/fake) with the real server's environment variables
// (ADDR, PUBLIC_BASE_URL, BOOKING_BASE_URL; ROUTER=osrm takes routing down),
// so that conformance/run-local.sh can be exercised without the real server:
//
//	SERVER_PKG=./internal/brokenserver/cmd/fake-trident-mcp conformance/run-local.sh
//
// It is a test double, never a server to deploy.
package main

import (
	"log"
	"net/http"
	"os"

	"github.com/tridenttaxis/trident-mcp/internal/brokenserver/fake"
)

func main() {
	h, err := fake.Handler(fake.Options{
		PublicBaseURL:  os.Getenv("PUBLIC_BASE_URL"),
		BookingBaseURL: os.Getenv("BOOKING_BASE_URL"),
		RoutingDown:    os.Getenv("ROUTER") == "osrm",
	})
	if err != nil {
		log.Fatal(err)
	}
	addr := os.Getenv("ADDR")
	if addr == "" {
		addr = ":8080"
	}
	log.Fatal(http.ListenAndServe(addr, h))
}
