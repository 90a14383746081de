package main_test

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// TestHostileClientsAreCutOff runs the real binary against clients that
// try to hold it: slow-loris connections that trickle their headers a byte
// at a time and never finish, and requests whose headers are too large.
// The slow ones are cut off once READ_HEADER_TIMEOUT passes, the large
// ones answered 431, and all the while the server answers everyone else.
func TestHostileClientsAreCutOff(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	const (
		headerTimeout = time.Second
		lorises       = 32
	)
	srv := testserver.Run(t, testserver.Build(t), testserver.FreeAddr(t),
		"READ_HEADER_TIMEOUT="+headerTimeout.String(), "LOG_LEVEL=warn")
	addr := strings.TrimPrefix(srv.Base, "http://")

	// Slow-loris: each connection sends a request line, then one header
	// byte every 100 ms; the server must close it, however long the
	// client goes on.
	type cut struct {
		after time.Duration
		err   error
	}
	cuts := make(chan cut, lorises)
	var wg sync.WaitGroup
	for range lorises {
		wg.Go(func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				cuts <- cut{err: err}
				return
			}
			defer c.Close()
			start := time.Now()
			io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\nX-Slow: ")
			closed := make(chan error, 1)
			go func() { // the server's answer, if any, or the close
				_, err := c.Read(make([]byte, 1))
				closed <- err
			}()
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case err := <-closed:
					cuts <- cut{after: time.Since(start), err: err}
					return
				case <-tick.C:
					if time.Since(start) > 30*time.Second { // a guard against hanging, not a timing
						cuts <- cut{after: time.Since(start), err: errors.New("still open")}
						return
					}
					c.Write([]byte("a"))
				}
			}
		})
	}

	// Meanwhile, ordinary calls keep being answered.
	c := &http.Client{Timeout: 10 * time.Second}
	served := 0
	for deadline := time.Now().Add(headerTimeout + 500*time.Millisecond); time.Now().Before(deadline); {
		if o, _, err := fareOnce(c, srv.Base); o != answered {
			t.Fatalf("a call while slow clients hold connections: %v", err)
		}
		served++
	}

	// Oversized headers: 431, and the connection is closed.
	for _, size := range []int{70 << 10, 1 << 20} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second)) // a guard, not a timing
		go io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\nX-Big: "+strings.Repeat("b", size)+"\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Errorf("%d-byte header: no answer: %v", size, err)
		} else if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge || !resp.Close {
			t.Errorf("%d-byte header: HTTP %d, close %v; want 431 and the connection closed", size, resp.StatusCode, resp.Close)
		}
		conn.Close()
	}

	wg.Wait()
	close(cuts)
	var slowest time.Duration
	for k := range cuts {
		switch {
		case k.err == nil:
			t.Errorf("a slow-loris connection got an answer byte instead of being closed")
		case k.err.Error() == "still open":
			t.Errorf("a slow-loris connection is still open after %v", k.after)
		}
		slowest = max(slowest, k.after)
	}
	if o, _, err := fareOnce(c, srv.Base); o != answered {
		t.Errorf("a call after the hostile clients: %v", err)
	}
	t.Logf("%d slow-loris connections cut off within %v (READ_HEADER_TIMEOUT %v); %d calls answered meanwhile; 70 KiB and 1 MiB header blocks got 431",
		lorises, slowest.Round(time.Millisecond), headerTimeout, served)
}
