package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tridenttaxis/trident-mcp/server/relay/signing"
)

// The Relay half of the run: the five Relay tools on /mcp/rides, each
// driven on its own, on a trident-mcp whose store is SQLite and on one
// whose store is PostgreSQL, measured in turn with estimate_fare on the
// SQLite server's /mcp (A B C … A B C) so that each tool's rate is read as a
// ratio to the fares it prices, in the same run.
//
// search_rides is the specification's sample search (Helensburgh to
// Glasgow Airport, a party of two), with no relay_context: each call opens a
// session, a journey and an intent, as an assistant's first search does. The
// other four tools continue the journey of one search made before each
// connection count (options live five minutes): continue_journey towards
// the stays connector, compare_rides of its first two options, resolve_ride
// and get_ride_booking_handoff of its first option.
//
// Beside them, when search_rides is measured, the floor (benchpeer -floor)
// answers the search's request with a reply of the first server's search,
// canned: what HTTP, the generator and the kernel cost to move a search's
// reply (~18 KB, its result twice, as text and as structuredContent) with
// nothing behind it. No search can run faster than that, and its ratio to
// estimate_fare says how much of the budget [searchTarget] gives a search
// the reply alone takes before the search does any work.

const relayPath = "/mcp/rides"

// relayTools are the measured tools in measurement order.
var relayTools = []string{"search_rides", "continue_journey", "compare_rides", "resolve_ride", "get_ride_booking_handoff"}

// searchArgs is contracts/relay/samples/search_rides.success.json's request.
const searchArgs = `{"pickup":{"latitude":56.00416,"longitude":-4.73253},"dropoff":{"latitude":55.8719,"longitude":-4.43306},"party_size":2}`

// relayServer is one trident-mcp with one store engine.
type relayServer struct {
	engine string // "sqlite" or "postgres"
	t      *target
}

// relaySlot is one tool (or estimate_fare) on one server.
type relaySlot struct {
	engine, tool string
	t            *target
	req          request
}

// relayEnv turns Relay's limits off, as the Trident runs turn RATE_LIMIT
// off: the benchmark measures the work, not the limiter's refusals. Both
// engines sign with a key of the run's own: a PostgreSQL store refuses to
// start without RELAY_SIGNING_KEYS, and SQLite's kept key would be one more
// difference between the two rows.
func relayEnv(databaseURL, signingKeys string) []string {
	return []string{"RELAY_DATABASE_URL=" + databaseURL, "RELAY_SIGNING_KEYS=" + signingKeys, "RELAY_RATE_LIMIT=0", "RELAY_PROVIDER_BUDGET=1000000000"}
}

// runSigningKeys is a RELAY_SIGNING_KEYS value with a fresh key of Relay's
// own making.
func runSigningKeys() string {
	kid, key := signing.NewKey("loadbench-")
	return kid + ":" + base64.RawURLEncoding.EncodeToString(key)
}

// startRelayServers starts one trident-mcp per engine. PostgreSQL gets a
// database of its own, dropped by stop.
func startRelayServers(c config, tmp string) (servers []relayServer, stop func(), err error) {
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	keys := runSigningKeys()
	for _, engine := range c.relayEngines {
		var dbURL string
		switch engine {
		case "sqlite":
			dbURL = "sqlite:" + tmp + "/relay.db"
		case "postgres":
			u, drop, err := createDatabase(c.postgresURL)
			if err != nil {
				// Without a PostgreSQL server the SQLite half still runs;
				// the table says which engine is missing.
				fmt.Fprintf(os.Stderr, "loadbench: WARNING: no Relay run on PostgreSQL at %s (-postgres): %v\n", redacted(c.postgresURL), err)
				continue
			}
			stops = append(stops, drop)
			dbURL = u
		}
		t, err := startServer(c.serverBin, relayEnv(dbURL, keys))
		if err != nil {
			return nil, stop, err
		}
		t.name = nameOurs + " (" + engine + ")"
		stops = append(stops, t.stop)
		servers = append(servers, relayServer{engine: engine, t: t})
	}
	return servers, stop, nil
}

func redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// createDatabase makes a fresh database on the server adminURL names and
// returns its URL and a func that drops it.
func createDatabase(adminURL string) (string, func(), error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", nil, err
	}
	defer conn.Close(ctx)
	name := fmt.Sprintf("loadbench_%d_%d", os.Getpid(), time.Now().UnixNano())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, err
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		return "", nil, err
	}
	u.Path = "/" + name
	return u.String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, adminURL)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadbench: dropping", name+":", err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench: dropping", name+":", err)
		}
	}, nil
}

// toolCall is a stateless tools/call body.
func toolCall(name, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
}

// callResult is the part of a tools/call reply the set-up reads.
type callResult struct {
	Result struct {
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// structured sends one call and returns its structuredContent, refusing a
// JSON-RPC error or a tool error.
func structured(addr, path, body string) (json.RawMessage, error) {
	raw, err := fetch(addr, newRequest(addr, path, body, nil, ""))
	if err != nil {
		return nil, err
	}
	var r callResult
	if err := json.Unmarshal(sseData(raw), &r); err != nil {
		return nil, fmt.Errorf("reply is not JSON-RPC: %.300s", raw)
	}
	if r.Error != nil {
		return nil, fmt.Errorf("JSON-RPC error: %s", r.Error.Message)
	}
	if r.Result.IsError {
		return nil, fmt.Errorf("tool error: %.300s", r.Result.StructuredContent)
	}
	return r.Result.StructuredContent, nil
}

// sseData is the data of a one-event text/event-stream body, or the body.
func sseData(b []byte) []byte {
	s := string(b)
	if i := strings.Index(s, "data: "); i >= 0 && !strings.HasPrefix(strings.TrimSpace(s), "{") {
		s = s[i+len("data: "):]
		if j := strings.Index(s, "\n"); j >= 0 {
			s = s[:j]
		}
	}
	return []byte(s)
}

// relayRequests makes one search on addr and builds the five tools'
// requests from it; each names the reply text that proves success.
func relayRequests(addr string) (map[string]request, error) {
	sc, err := structured(addr, relayPath, toolCall("search_rides", searchArgs))
	if err != nil {
		return nil, fmt.Errorf("search_rides: %w", err)
	}
	var found struct {
		Status       string            `json:"status"`
		RelayContext json.RawMessage   `json:"relay_context"`
		Options      []json.RawMessage `json:"options"`
	}
	if err := json.Unmarshal(sc, &found); err != nil {
		return nil, fmt.Errorf("search_rides: %w", err)
	}
	if found.Status != "ok" || len(found.Options) < 2 {
		return nil, fmt.Errorf("search_rides: status %q with %d options, want ok with two or more: %.300s", found.Status, len(found.Options), sc)
	}
	var ref struct {
		JourneyID string `json:"journey_id"`
	}
	if err := json.Unmarshal(found.RelayContext, &ref); err != nil || ref.JourneyID == "" {
		return nil, fmt.Errorf("search_rides: relay_context without journey_id: %s", found.RelayContext)
	}
	rc, o0, o1 := string(found.RelayContext), string(found.Options[0]), string(found.Options[1])
	bodies := map[string]string{
		"search_rides":             toolCall("search_rides", searchArgs),
		"continue_journey":         toolCall("continue_journey", `{"context":`+rc+`,"journey_id":"`+ref.JourneyID+`","to_connector":"stays","journey_context":{"destination_airport":"GLA","destination_city":"Glasgow","party_size":2}}`),
		"compare_rides":            toolCall("compare_rides", `{"context":`+rc+`,"options":[`+o0+`,`+o1+`]}`),
		"resolve_ride":             toolCall("resolve_ride", `{"context":`+rc+`,"option":`+o0+`}`),
		"get_ride_booking_handoff": toolCall("get_ride_booking_handoff", `{"context":`+rc+`,"option":`+o0+`}`),
	}
	out := map[string]request{}
	for _, tool := range relayTools {
		// The first answer says what a good one holds: its status.
		sc, err := structured(addr, relayPath, bodies[tool])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tool, err)
		}
		var st struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal(sc, &st); err != nil || st.Status == "" {
			return nil, fmt.Errorf("%s: no status in %.300s", tool, sc)
		}
		out[tool] = newRequest(addr, relayPath, bodies[tool], nil, `"status":"`+st.Status+`"`)
	}
	return out, nil
}

// cannedEngine is the store column of the canned search reply's row: it has
// no store, and no Relay.
const cannedEngine = "canned"

// startCannedSearch makes one search on addr and starts the floor answering
// the same request with that search's reply, byte for byte (its framing
// too: a stated Content-Length, as trident-mcp's fast path states it).
func startCannedSearch(peerBin, addr string) (relaySlot, func(), error) {
	body := toolCall("search_rides", searchArgs)
	reply, err := fetch(addr, newRequest(addr, relayPath, body, nil, `"status":"ok"`))
	if err != nil {
		return relaySlot{}, nil, err
	}
	t, err := startPeer(nameFloor, peerBin, "-floor", "-reply", string(reply))
	if err != nil {
		return relaySlot{}, nil, err
	}
	req := newRequest(t.addr, relayPath, body, nil, `"status":"ok"`)
	if got, err := fetch(t.addr, req); err != nil || !bytes.Equal(got, reply) {
		t.stop()
		return relaySlot{}, nil, fmt.Errorf("the floor did not answer the canned reply: %v", err)
	}
	return relaySlot{engine: cannedEngine, tool: "search_rides", t: t, req: req}, t.stop, nil
}

// runRelay measures every Relay tool on every engine beside estimate_fare.
// results: conns, engine, tool ("estimate_fare" for the fare on /mcp).
func runRelay(c *config, tmp string) (map[int]map[string]map[string]load, error) {
	servers, stop, err := startRelayServers(*c, tmp)
	defer stop()
	if err != nil {
		return nil, err
	}
	c.relayEngines = c.relayEngines[:0]
	for _, sv := range servers {
		c.relayEngines = append(c.relayEngines, sv.engine)
	}
	if len(servers) == 0 {
		return nil, errors.New("no engine to run Relay on")
	}
	fare := newRequest(servers[0].t.addr, "/mcp", requestBody, nil, wantInReply)
	if _, err := fetch(servers[0].t.addr, fare); err != nil {
		return nil, fmt.Errorf("estimate_fare: %w", err)
	}
	var canned *relaySlot
	if slices.Contains(c.relayTools, "search_rides") {
		floor, stopFloor, err := startCannedSearch(c.peerBin, servers[0].t.addr)
		if err != nil {
			return nil, fmt.Errorf("the canned search_rides reply: %w", err)
		}
		defer stopFloor()
		canned = &floor
	}
	results := map[int]map[string]map[string]load{}
	for _, n := range c.conns {
		// Fresh options for every connection count: they expire.
		slots := []relaySlot{{engine: servers[0].engine, tool: "estimate_fare", t: servers[0].t, req: fare}}
		if canned != nil {
			slots = append(slots, *canned)
		}
		for _, sv := range servers {
			reqs, err := relayRequests(sv.t.addr)
			if err != nil {
				return nil, fmt.Errorf("Relay on %s: %w", sv.engine, err)
			}
			for _, tool := range c.relayTools {
				slots = append(slots, relaySlot{engine: sv.engine, tool: tool, t: sv.t, req: reqs[tool]})
			}
		}
		runs := make([][]load, len(slots))
		for round := range c.relayRounds {
			for i, sl := range slots {
				fmt.Fprintf(os.Stderr, "  Relay, %d conns, round %d: %s on %s\n", n, round+1, sl.tool, sl.engine)
				l, err := drive(sl.t.addr, sl.t.pid(), sl.req, n, c.warm, c.relayDur)
				if err != nil {
					return nil, fmt.Errorf("%s on %s at %d connections: %w", sl.tool, sl.engine, n, err)
				}
				runs[i] = append(runs[i], l)
			}
		}
		results[n] = map[string]map[string]load{}
		for i, sl := range slots {
			if results[n][sl.engine] == nil {
				results[n][sl.engine] = map[string]load{}
			}
			results[n][sl.engine][sl.tool] = merge(runs[i])
		}
	}
	return results, nil
}

// searchTarget is the target for search_rides: this fraction of
// estimate_fare's throughput on the same server.
const searchTarget = 0.25

// reportRelay prints the Relay table and the Relay targets.
func reportRelay(w io.Writer, c config, results map[int]map[string]map[string]load) {
	fmt.Fprintf(w, "\nRelay (/mcp/rides) beside estimate_fare (/mcp of the %s server), public mode, limits off; %d rounds of %v per tool and connection count\n",
		c.relayEngines[0], c.relayRounds, c.relayDur)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "conns\tstore\ttool\treq/s\tp50\tp99\treq/s vs estimate_fare\tserver CPU/req\tCPU/req vs estimate_fare\t")
	fareOf := func(n int) load { return results[n][c.relayEngines[0]]["estimate_fare"] }
	for _, n := range c.conns {
		fare := fareOf(n)
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.0f\t%s\t%s\t%s\t%s\t%s\t\n", n, "-", "estimate_fare", fare.rps(), dur(fare.pct(0.5)), dur(fare.pct(0.99)), "1", durFine(fare.srvPerRequest()), "1")
		row := func(store, tool string, l load) {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%.0f\t%s\t%s\t%.3f\t%s\t%.1fx\t\n", n, store, tool, l.rps(), dur(l.pct(0.5)), dur(l.pct(0.99)), l.rps()/fare.rps(),
				durFine(l.srvPerRequest()), float64(l.srvPerRequest())/float64(fare.srvPerRequest()))
		}
		if l, ok := results[n][cannedEngine]["search_rides"]; ok {
			row(cannedEngine, "search_rides reply", l)
		}
		for _, engine := range c.relayEngines {
			for _, tool := range c.relayTools {
				row(engine, tool, results[n][engine][tool])
			}
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "\nRelay targets (ratios in this run):")
	check := func(ok bool, format string, args ...any) {
		verdict := "met    "
		if !ok {
			verdict = "NOT met"
		}
		fmt.Fprintf(w, "  %s  "+format+"\n", append([]any{verdict}, args...)...)
	}
	if !slices.Contains(c.relayTools, "search_rides") {
		fmt.Fprintln(w, "  (search_rides not measured in this run)")
		return
	}
	for _, n := range []int{16, 64} {
		if l, ok := results[n][cannedEngine]["search_rides"]; ok {
			// A search's machine time, in estimate_fares, is 1/ratio; the
			// canned reply takes 1/canned of it whatever the search does.
			canned := l.rps() / fareOf(n).rps()
			fmt.Fprintf(w, "  (%d conns: the canned search_rides reply alone runs at %.3f of estimate_fare's throughput; at %.2f a search has the machine time of %.2f estimate_fares for all it does beyond moving its reply)\n",
				n, canned, searchTarget, 1/searchTarget-1/canned)
		}
	}
	for _, engine := range c.relayEngines {
		for _, n := range []int{16, 64} {
			row, ok := results[n]
			if !ok {
				continue
			}
			r := row[engine]["search_rides"].rps() / fareOf(n).rps()
			check(r >= searchTarget, "%s, %d conns: search_rides at %.3f of estimate_fare's throughput (want >= %.2f)", engine, n, r, searchTarget)
		}
		if row, ok := results[16]; ok {
			p := row[engine]["search_rides"].pct(0.99)
			check(p <= 20*time.Millisecond, "%s, 16 conns: search_rides p99 %s (want <= 20ms)", engine, dur(p))
		}
	}
}

// relayEnginesFlag parses -relay.
func relayEnginesFlag(s string) ([]string, error) {
	var out []string
	for _, e := range strings.Split(s, ",") {
		switch e = strings.TrimSpace(e); e {
		case "":
		case "sqlite", "postgres":
			out = append(out, e)
		default:
			return nil, errors.New("-relay: " + e + " is neither sqlite nor postgres")
		}
	}
	return out, nil
}

// relayToolsFlag reads -relay-tools: known tools, kept in relayTools' order
// (the order the table and the rounds use), each once.
func relayToolsFlag(s string) ([]string, error) {
	asked := map[string]bool{}
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		if !slices.Contains(relayTools, t) {
			return nil, fmt.Errorf("-relay-tools: %s is not a Relay tool (%s)", t, strings.Join(relayTools, ", "))
		}
		asked[t] = true
	}
	if len(asked) == 0 {
		return nil, errors.New("-relay-tools: no tool named (use -relay= for no Relay table)")
	}
	var out []string
	for _, t := range relayTools {
		if asked[t] {
			out = append(out, t)
		}
	}
	return out, nil
}
