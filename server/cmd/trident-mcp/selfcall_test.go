package main_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// With RATE_LIMIT=seed, Relay still prices every search through the
// server's own Trident: each search asks estimate_fare once per vehicle
// class at once (six for a party of two), every caller's search from the
// one loopback client, which the seed's caps (2 at once, 30 a minute)
// would refuse from the first search on. Relay's calls carry the host's
// internal token and skip that limit (Relay's own RELAY_RATE_LIMIT and
// RELAY_PROVIDER_BUDGET bound them); an outside caller does not, even one
// naming the header with a guessed value.
func TestRelayPricesUnderTridentsSeedLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	srv := testserver.Run(t, testserver.Build(t), testserver.FreeAddr(t), "RATE_LIMIT=seed", "LOG_LEVEL=info")
	post := func(path, body string, header ...string) (int, string) {
		t.Helper()
		status, _, reply := post(t, srv.Base+path, body, header...)
		return status, reply
	}
	// Eight searches of six classes each: 48 estimate_fare calls, 36 of
	// them two or more at once, over the seed's 30 a minute.
	const search = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search_rides","arguments":{"pickup":{"latitude":56.00416,"longitude":-4.73253},"dropoff":{"latitude":55.8719,"longitude":-4.43306},"party_size":2}}}`
	for i := range 8 {
		status, reply := post("/mcp/rides", search)
		if status != http.StatusOK || !strings.Contains(reply, `\"status\":\"ok\"`) || strings.Count(reply, `\"provider\":\"trident\",\"product\"`) != 6 || strings.Contains(reply, `\"errors\":[{`) {
			t.Fatalf("search %d under RATE_LIMIT=seed: HTTP %d, want ok with Trident's six classes and no errors:\n%.900s", i+1, status, reply)
		}
	}

	// An outside caller is still limited: three at once, one is refused
	// 429, whatever Internal-Caller value it guesses.
	var wg sync.WaitGroup
	statuses := make([]int, 3)
	for i := range statuses {
		wg.Go(func() { statuses[i], _ = post("/mcp", fareCall, "Internal-Caller", "guess") })
	}
	wg.Wait()
	refused := 0
	for _, s := range statuses {
		if s == http.StatusTooManyRequests {
			refused++
		}
	}
	// Three calls at once against a cap of two: at least one is refused
	// unless the calls happened not to overlap; thirty more in a row spend
	// the minute's rate for certain.
	for i := 0; refused == 0 && i < 31; i++ {
		if s, _ := post("/mcp", fareCall, "Internal-Caller", "guess"); s == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused == 0 {
		t.Errorf("an outside caller with a guessed Internal-Caller was never limited under RATE_LIMIT=seed: %v", statuses)
	}
	// The access log (info) records every request, never a header.
	if logs := srv.Logs(); !strings.Contains(logs, `"path":"/mcp"`) || strings.Contains(logs, "Internal-Caller") || strings.Contains(logs, "guess") {
		t.Errorf("the log lacks the access log, or shows the internal header:\n%.600s", logs)
	}
}
