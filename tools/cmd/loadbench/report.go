package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"text/tabwriter"
	"time"
)

// floorHeadroom is how many times the fastest server's rate the floor must
// reach for the generator not to be the bottleneck.
const floorHeadroom = 3.0

// report prints one table of every mode, connection count and target, the
// ratios to the peer and the floor, and the targets.
func report(w io.Writer, c config, results map[string]map[int]map[string]load) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mode\tconns\ttarget\treq/s\tp50\tp99\treq/s vs peer\tp99 vs peer\treq/s vs floor\tgenerator CPU/req\tserver CPU/req\t")
	var warnings []string
	for _, mode := range c.modes {
		for _, n := range c.conns {
			row := results[mode][n]
			peer, floor := row[namePeer], row[nameFloor]
			for _, name := range []string{nameOurs, namePeer, nameFloor} {
				l := row[name]
				vsPeer, p99Peer := "", ""
				if name == nameOurs {
					vsPeer = fmt.Sprintf("%.2fx", l.rps()/peer.rps())
					p99Peer = fmt.Sprintf("%.2fx", float64(l.pct(0.99))/float64(peer.pct(0.99)))
				}
				vsFloor := ""
				if name != nameFloor {
					vsFloor = fmt.Sprintf("%.3f", l.rps()/floor.rps())
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", mode, n, name, l.rps(), dur(l.pct(0.50)), dur(l.pct(0.99)), vsPeer, p99Peer, vsFloor, durFine(l.genPerRequest()), durFine(l.srvPerRequest()))
			}
			// One connection is a ping-pong bound by round-trip latency, not
			// by the generator's CPU, so the headroom check starts at two.
			if fastest := max(row[nameOurs].rps(), peer.rps()); n > 1 && floor.rps() < floorHeadroom*fastest {
				warnings = append(warnings, fmt.Sprintf("WARNING: %s mode, %d conns: the floor (%.0f req/s) is only %.1fx the fastest server: the generator may be the bottleneck",
					mode, n, floor.rps(), floor.rps()/fastest))
			}
		}
	}
	tw.Flush()
	for _, s := range warnings {
		fmt.Fprintln(w, s)
	}

	fmt.Fprintln(w, "\ntargets (ratios in this run):")
	check := func(ok bool, format string, args ...any) {
		verdict := "met    "
		if !ok {
			verdict = "NOT met"
		}
		fmt.Fprintf(w, "  %s  "+format+"\n", append([]any{verdict}, args...)...)
	}
	for _, mode := range c.modes {
		for _, n := range []int{16, 64} {
			if row, ok := results[mode][n]; ok {
				r := row[nameOurs].rps() / row[namePeer].rps()
				check(r >= 2, "%s, %d conns: throughput %.2fx the peer (want >= 2x)", mode, n, r)
				// Throughput on two shared cores also counts the generator's
				// CPU, the same for both servers; what each server spends
				// on a request is the comparison of the code alone.
				if ours, peer := row[nameOurs].srvPerRequest(), row[namePeer].srvPerRequest(); ours > 0 && peer > 0 {
					fmt.Fprintf(w, "           (server CPU per request: %s against the peer's %s, %.2fx less)\n", durFine(ours), durFine(peer), float64(peer)/float64(ours))
				}
			}
		}
		if row, ok := results[mode][16]; ok {
			ours, peer := row[nameOurs].pct(0.99), row[namePeer].pct(0.99)
			check(ours <= peer, "%s, 16 conns: p99 %s vs the peer's %s (want no higher)", mode, dur(ours), dur(peer))
		}
		for _, n := range []int{16, 64} {
			if row, ok := results[mode][n]; ok {
				r := row[nameOurs].rps() / row[nameFloor].rps()
				check(r >= 0.5, "%s, %d conns: trident-mcp at %.2f of the canned-reply floor (want >= 0.5)", mode, n, r)
				// The generator is not the limit when it drives the floor
				// at twice the fastest server's rate or more.
				fastest := max(row[nameOurs].rps(), row[namePeer].rps())
				g := row[nameFloor].rps() / fastest
				check(g >= 2, "%s, %d conns: the generator drove the floor at %.1fx the fastest server (want >= 2x: the generator is not the limit)", mode, n, g)
				// The floor shares the two CPUs with the generator, so the
				// check above also measures the floor server: the
				// generator's own CPU per request says what it could drive
				// with the machine to itself.
				if per := row[nameOurs].genPerRequest(); per > 0 {
					alone := float64(runtime.NumCPU()) * float64(time.Second) / float64(per)
					check(alone >= 2*fastest, "%s, %d conns: the generator spent %s of CPU per request to trident-mcp: %.0f req/s on %d CPUs to itself, %.1fx the fastest server (want >= 2x)",
						mode, n, durFine(per), alone, runtime.NumCPU(), alone/fastest)
				}
			}
		}
	}
	if slices.Contains(c.modes, "public") && slices.Contains(c.modes, "oauth") {
		for _, n := range c.conns {
			pub, oa := results["public"][n][nameOurs].rps(), results["oauth"][n][nameOurs].rps()
			check(oa >= 0.9*pub, "%d conns: OAuth mode at %.2fx public mode (want within 10%%)", n, oa/pub)
			// The floor checks no token, yet gets the OAuth-mode request
			// with its Authorization header: its ratio is what carrying the
			// token costs HTTP and the generator here, apart from any
			// server's verifier.
			fpub, foa := results["public"][n][nameFloor].rps(), results["oauth"][n][nameFloor].rps()
			fmt.Fprintf(w, "           (the floor, which verifies nothing, at %.2fx with the same header: trident-mcp at %.2fx of that)\n", foa/fpub, (oa/pub)/(foa/fpub))
		}
	}
}

// durFine is d in microseconds with one decimal: a generator's CPU per
// request is a few of them.
func durFine(d time.Duration) string {
	return fmt.Sprintf("%.1fµs", float64(d)/float64(time.Microsecond))
}

func dur(d time.Duration) string {
	switch {
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	}
}
