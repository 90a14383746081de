package observability_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/deploy/internal/serverproc"
)

func TestMain(m *testing.M) {
	code := m.Run()
	serverproc.Cleanup()
	os.Exit(code)
}

// fakeOSRM is an OSRM route service answering every route with 12.3 km in
// 20 minutes, so that the server runs with ROUTER=osrm (an HTTP back end
// behind a circuit breaker, whose series the rules name) and Trident's route
// step makes an HTTP call the trace shows.
func fakeOSRM(t *testing.T) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/route/v1/driving/") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"code":"Ok","routes":[{"distance":12300,"duration":1200,"weight":1200,"weight_name":"routability"}],"waypoints":[]}`)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// startServer runs the server binary with env beside the defaults these
// tests share: a store of its own, the fake OSRM router, no drain delay.
func startServer(t *testing.T, env ...string) *serverproc.Process {
	t.Helper()
	bin := serverproc.Binary(t)
	dir := t.TempDir()
	// A port known before the start: Relay's Trident source is this
	// server's own /mcp on it (with port 0 it would have none).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base := []string{"RELAY_DATABASE_URL=sqlite:" + dir + "/relay.db", "ROUTER=osrm", "OSRM_URL=" + fakeOSRM(t),
		"SHUTDOWN_DELAY=0s", "LOG_LEVEL=info", "HOME=" + dir, "TMPDIR=" + dir}
	return serverproc.StartOn(t, bin, dir, append(base, env...), addr)
}

// Helensburgh Central Station to Glasgow Airport: in Trident's tariff area,
// so Relay prices the trip with Trident.
const searchArgs = `{"pickup":{"latitude":56.00416,"longitude":-4.73253},"dropoff":{"latitude":55.8719,"longitude":-4.43306},"party_size":2}`

// call sends one tools/call to the endpoint at url with the extra headers
// and returns its structuredContent.
func call(t *testing.T, url, tool, args string, header map[string]string) map[string]any {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, tool, args)
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: HTTP %d: %s", tool, resp.StatusCode, b)
	}
	var rpc struct {
		Result struct {
			IsError    bool           `json:"isError"`
			Structured map[string]any `json:"structuredContent"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&rpc); err != nil || rpc.Error != nil {
		t.Fatalf("%s: %v %s", tool, err, b)
	}
	return rpc.Result.Structured
}

// search runs one search_rides and checks that Trident priced it.
func search(t *testing.T, base string, header map[string]string) map[string]any {
	t.Helper()
	out := call(t, base+"/mcp/rides", "search_rides", searchArgs, header)
	if out["status"] != "ok" {
		t.Fatalf("search_rides status %v, want ok (Trident priced): %v", out["status"], out)
	}
	return out
}
