package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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

// drive counts every request it sent, warm-up included, beside the
// generator's CPU, so that its cost per request can be told apart from the
// server's; the recorded requests are those after the warm-up.
func TestDriveCountsTheGeneratorsCost(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, `{"result":{"fareGBP":62.4}}`)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	l, err := drive(addr, 0, newRequest(addr, "/mcp", requestBody, nil, wantInReply), 2, 100*time.Millisecond, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if l.requests == 0 || l.sent <= l.requests {
		t.Errorf("%d requests recorded of %d sent; want some, and fewer than sent (the warm-up's are not recorded)", l.requests, l.sent)
	}
	if l.genCPU <= 0 || l.genPerRequest() <= 0 || l.genPerRequest() > 10*time.Millisecond {
		t.Errorf("generator CPU %v, %v per request; want a positive cost per request", l.genCPU, l.genPerRequest())
	}
	m := merge([]load{l, l})
	if m.sent != 2*l.sent || m.genCPU != 2*l.genCPU || m.genPerRequest() != l.genPerRequest() {
		t.Errorf("merge of two equal runs: sent %d, CPU %v; want %d and %v at the same cost per request", m.sent, m.genCPU, 2*l.sent, 2*l.genCPU)
	}
}

// serverCPU reads a process's CPU from /proc as getrusage reports it for
// the process itself, to the 10 ms of a clock tick.
func TestServerCPUReadsProc(t *testing.T) {
	for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
	}
	proc, own := serverCPU(os.Getpid()), processCPU()
	if proc < 250*time.Millisecond || proc > own+20*time.Millisecond || own-proc > 50*time.Millisecond {
		t.Errorf("serverCPU of this process %v, getrusage %v; want both at least 250ms and within a few ticks", proc, own)
	}
	if got := serverCPU(0); got != 0 {
		t.Errorf("serverCPU(0) = %v; want 0 (no process)", got)
	}
}
