package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/tridenttaxis/trident-mcp/client"
)

// memServer answers MCP requests in memory. The first initialize waits
// until its request's context ends, so that a test controls who holds the
// handshake.
type memServer struct {
	mu    sync.Mutex
	inits int
}

func (m *memServer) RoundTrip(r *http.Request) (*http.Response, error) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	json.Unmarshal(b, &req)
	reply := func(status int, body string) (*http.Response, error) {
		h := http.Header{"Content-Type": {"application/json"}, "Mcp-Session-Id": {"s1"}}
		return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	}
	switch req.Method {
	case client.MethodInitialize:
		m.mu.Lock()
		m.inits++
		first := m.inits == 1
		m.mu.Unlock()
		if first {
			<-r.Context().Done()
			return nil, r.Context().Err()
		}
		return reply(200, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}`)
	case client.MethodInitialized:
		return reply(202, "")
	default:
		return reply(200, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	}
}

// A call that joins a handshake started by another call, which then gives
// up, is not failed with the other call's cancellation: it runs the
// handshake itself.
func TestSharedHandshakeSurvivesItsStartersCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &memServer{}
		c, err := client.New("http://mcp.test/mcp", client.WithHTTPClient(&http.Client{Transport: srv}),
			client.WithHandshake(client.HandshakeAlways))
		if err != nil {
			t.Fatal(err)
		}
		startCtx, cancel := context.WithCancel(context.Background())
		starter, joiner := make(chan error, 1), make(chan error, 1)
		go func() { _, err := c.Call(startCtx, "x", nil, nil); starter <- err }()
		synctest.Wait() // the starter's initialize is in flight
		go func() { _, err := c.Call(context.Background(), "x", nil, nil); joiner <- err }()
		synctest.Wait() // the joiner waits on the same handshake
		cancel()
		if err := <-starter; !errors.Is(err, context.Canceled) {
			t.Errorf("starter: %v, want context.Canceled", err)
		}
		if err := <-joiner; err != nil {
			t.Errorf("joiner: %v, want success after its own handshake", err)
		}
		if srv.inits != 2 {
			t.Errorf("%d initialize requests, want 2", srv.inits)
		}
	})
}

// A call waiting on another call's handshake stops when its own context
// ends.
func TestHandshakeWaitHonoursTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &memServer{}
		c, _ := client.New("http://mcp.test/mcp", client.WithHTTPClient(&http.Client{Transport: srv}),
			client.WithHandshake(client.HandshakeAlways))
		startCtx, cancelStarter := context.WithCancel(context.Background())
		defer cancelStarter()
		starter := make(chan error, 1)
		go func() { _, err := c.Call(startCtx, "x", nil, nil); starter <- err }()
		synctest.Wait()
		waitCtx, cancelWaiter := context.WithCancel(context.Background())
		waiter := make(chan error, 1)
		go func() { _, err := c.Call(waitCtx, "x", nil, nil); waiter <- err }()
		synctest.Wait()
		cancelWaiter()
		if err := <-waiter; !errors.Is(err, context.Canceled) {
			t.Errorf("waiter: %v, want context.Canceled while the handshake still runs", err)
		}
		cancelStarter()
		<-starter
	})
}
