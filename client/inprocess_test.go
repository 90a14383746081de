package client_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tridenttaxis/trident-mcp/client"
)

// The in-process transport hands the handler a request as a server sees it
// and the caller the status, headers and body the handler wrote; headers
// changed after the status are not sent, as on a socket.
func TestInProcessTransport(t *testing.T) {
	var seen *http.Request
	var body string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r
		b, _ := io.ReadAll(r.Body)
		body = string(b)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusAccepted)
		w.Header().Set("X-Late", "1")
		w.Write([]byte("data: {}\n\n"))
		w.(http.Flusher).Flush()
	})
	hc := &http.Client{Transport: client.InProcess(h)}
	resp, err := hc.Post("http://example.test:8080/mcp?x=1", "application/json", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("X-Late") != "" || string(got) != "data: {}\n\n" {
		t.Errorf("reply %d %v %q", resp.StatusCode, resp.Header, got)
	}
	if seen.RequestURI != "/mcp?x=1" || seen.URL.Path != "/mcp" || seen.Host != "example.test:8080" || seen.Method != http.MethodPost || body != `{"a":1}` || !strings.HasPrefix(seen.RemoteAddr, "127.0.0.1:") {
		t.Errorf("handler saw %s %s host %q from %q, body %q", seen.Method, seen.RequestURI, seen.Host, seen.RemoteAddr, body)
	}
}

// A handler that panics is a transport error for the caller, not a crash.
func TestInProcessTransportPanic(t *testing.T) {
	hc := &http.Client{Transport: client.InProcess(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))}
	if _, err := hc.Get("http://example.test/mcp"); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Errorf("err %v; want the panic as an error", err)
	}
}

// The status line and body are those net/http's client would show.
func TestInProcessStatusLine(t *testing.T) {
	for code, want := range map[int]string{http.StatusOK: "200 OK", http.StatusNotFound: "404 Not Found", http.StatusAccepted: "202 Accepted"} {
		hc := &http.Client{Transport: client.InProcess(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(code)
			w.Write([]byte("body"))
		}))}
		resp, err := hc.Get("http://example.test/mcp")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		if resp.Status != want || string(got) != "body" || resp.ContentLength != 4 || resp.Body.Close() != nil {
			t.Errorf("%d: status %q, body %q (%d)", code, resp.Status, got, resp.ContentLength)
		}
	}
}
