package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// The generator's hand-written HTTP/1.1 reader must read every framing the
// servers use, keep the connection when it may, and refuse bad replies.
func TestClientReadsEveryFraming(t *testing.T) {
	const reply = `{"result":{"fareGBP":62.4}}`
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if string(body) != requestBody || r.Header.Get("Accept") != "application/json, text/event-stream" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/chunked":
			io.WriteString(w, reply[:10])
			w.(http.Flusher).Flush()
			io.WriteString(w, reply[10:])
		case "/close":
			w.Header().Set("Connection", "close")
			io.WriteString(w, reply)
		case "/401":
			w.WriteHeader(http.StatusUnauthorized)
		default:
			io.WriteString(w, reply)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")

	c := &client{addr: addr}
	defer c.close()
	for _, path := range []string{"/length", "/chunked", "/length", "/chunked"} {
		if err := c.do(newRequest(addr, path, requestBody, nil, wantInReply)); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if string(c.body) != reply {
			t.Fatalf("%s: body %q", path, c.body)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("keep-alive replies used %d connections, want 1", n)
	}
	for range 2 {
		if err := c.do(newRequest(addr, "/close", requestBody, nil, wantInReply)); err != nil {
			t.Fatal(err)
		}
	}
	// The first reuses the open connection, the second dials anew.
	if n := conns.Load(); n != 2 {
		t.Errorf("after two Connection: close replies: %d connections, want 2", n)
	}
	if err := c.do(newRequest(addr, "/401", requestBody, nil, wantInReply)); err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Errorf("401: err = %v", err)
	}
	if err := c.do(newRequest(addr, "/length", requestBody, nil, `"fareGBP":99`)); err == nil {
		t.Error("a reply without the expected content was accepted")
	}
}
