// Command check-roads checks the road graph the embedded router routes on
// (server/trident/geo/data/roads.json) and reports on it: the same checks the server
// runs when it loads the file (known nodes, each section at least as long as
// the straight line between its ends and at most twice it plus a mile,
// plausible speeds, ferries with times, one connected network), then a
// summary and the sections that wind most, which is where a typo in miles or
// in a node's position shows first.
//
//	go run ./tools/cmd/check-roads            # the shipped file
//	go run ./tools/cmd/check-roads -v FILE    # every section, any file
//
// It exits 1 when the file fails a check. The accuracy of whole trips
// against real road distances is a test: go test ./server/geo -run TestRoadTrips -v.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/tridenttaxis/trident-mcp/server/trident/geo"
)

const defaultFile = "server/trident/geo/data/roads.json"

func main() {
	verbose := flag.Bool("v", false, "list every section, not only the ten that wind most")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: check-roads [-v] [FILE]\n\nChecks a road graph file (default %s).\n\n", defaultFile)
		flag.PrintDefaults()
	}
	flag.Parse()
	file := defaultFile
	switch flag.NArg() {
	case 0:
	case 1:
		file = flag.Arg(0)
	default:
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, file, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// section is a road or ferry with the ratio of its length to the straight line.
type section struct {
	what         string
	miles, ratio float64
}

func run(w io.Writer, file string, verbose bool) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	n, err := geo.ParseRoadNetwork(b)
	if err != nil {
		return fmt.Errorf("%s:\n%w", file, err)
	}
	at := make(map[string]geo.Place, len(n.Nodes))
	kinds := map[string]int{}
	var gateways []string
	for _, nd := range n.Nodes {
		at[nd.ID] = geo.Place{Lat: nd.Lat, Lon: nd.Lon}
		kinds[nd.Kind]++
		if nd.Gateway != "" {
			gateways = append(gateways, nd.ID+" ("+nd.Gateway+")")
		}
	}
	var secs []section
	roadMiles := 0.0
	for _, e := range n.Roads {
		straight := geo.DistanceMeters(at[e.From], at[e.To]) / 1609.344
		secs = append(secs, section{fmt.Sprintf("%-28s %s - %s, %g mph", e.Road, e.From, e.To, e.MPH), e.Miles, e.Miles / straight})
		roadMiles += e.Miles
	}
	slices.SortStableFunc(secs, func(a, b section) int { return cmp.Compare(b.ratio, a.ratio) })

	fmt.Fprintf(w, "%s: ok\n", file)
	fmt.Fprintf(w, "%d nodes (%d towns, %d junctions, %d ferry terminals, %d airports), %d road sections (%.0f miles), %d ferries\n",
		len(n.Nodes), kinds["town"], kinds["junction"], kinds["ferry"], kinds["airport"], len(n.Roads), roadMiles, len(n.Ferries))
	fmt.Fprintf(w, "gateways: %v\n", gateways)
	for _, f := range n.Ferries {
		use := "routed"
		if !f.Vehicles {
			use = "NOT routed (foot passengers only)"
		}
		fmt.Fprintf(w, "ferry %-24s %s - %s: %g mi, %g min crossing + %g min boarding, %s\n", f.Operator, f.From, f.To, f.Miles, f.CrossingMinutes, f.BoardingMinutes, use)
	}
	shown := secs
	if !verbose {
		shown = secs[:min(10, len(secs))]
		fmt.Fprintln(w, "sections that wind most (road miles / straight-line miles):")
	} else {
		fmt.Fprintln(w, "every section (road miles / straight-line miles):")
	}
	for _, s := range shown {
		fmt.Fprintf(w, "  %5.2f  %5.1f mi  %s\n", s.ratio, s.miles, s.what)
	}
	return nil
}
