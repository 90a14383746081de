// Package hangproxy is a TCP proxy on loopback for tests of what a client
// does when the server behind it stops answering without refusing
// connections: a hung or partitioned Redis, whose TCP connections are
// accepted (or stay established) and whose replies never come. Such a
// server is what a client's timeouts are for, and what a refused
// connection (a server that is down) does not show.
//
// While the proxy forwards, it is transparent. [Proxy.Hang] stalls every
// connection, open or new: what the client sends is read and dropped, and
// nothing comes back, so the client's writes succeed and its reads wait.
// [Proxy.Forward] ends the hang: the stalled connections are closed (their
// exchanges are lost, as after a partition a client has long given up on
// them) and new ones are forwarded again.
package hangproxy

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards loopback connections to one upstream address.
type Proxy struct {
	// Addr is where clients connect (127.0.0.1:port).
	Addr string

	upstream string
	ln       net.Listener

	mu      sync.Mutex
	hung    bool
	conns   map[*link]bool // every open client connection
	stalled map[*link]bool // those that saw a hang: closed by Forward
}

// link is one client connection and, while forwarded, its upstream one.
type link struct {
	client net.Conn
	server net.Conn // nil once stalled (or when accepted during a hang)
}

// Start listens on a free loopback port and forwards to upstream until tb
// ends.
func Start(tb testing.TB, upstream string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), upstream: upstream, ln: ln,
		conns: map[*link]bool{}, stalled: map[*link]bool{}}
	go p.accept()
	tb.Cleanup(p.close)
	return p
}

// Hang stalls every connection, those open and those to come, until
// [Proxy.Forward].
func (p *Proxy) Hang() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hung = true
	for l := range p.conns {
		p.stallLocked(l)
	}
}

// Forward ends a hang: the stalled connections are closed, new ones are
// forwarded.
func (p *Proxy) Forward() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hung = false
	for l := range p.stalled {
		l.client.Close()
		delete(p.stalled, l)
		delete(p.conns, l)
	}
}

// stallLocked cuts l from its upstream: the client side stays open, and
// its reader (pump) drops what arrives from now on.
func (p *Proxy) stallLocked(l *link) {
	p.stalled[l] = true
	if l.server != nil {
		l.server.Close()
		l.server = nil
	}
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		go p.serve(c)
	}
}

func (p *Proxy) serve(c net.Conn) {
	l := &link{client: c}
	p.mu.Lock()
	p.conns[l] = true
	hung := p.hung
	p.mu.Unlock()
	if !hung {
		s, err := net.Dial("tcp", p.upstream)
		if err != nil {
			c.Close()
			p.forget(l)
			return
		}
		p.mu.Lock()
		if p.hung { // a hang began while dialling
			s.Close()
			p.stallLocked(l)
		} else {
			l.server = s
			go p.back(l, s)
		}
		p.mu.Unlock()
	} else {
		p.mu.Lock()
		p.stallLocked(l)
		p.mu.Unlock()
	}
	// Client to upstream, until the client goes; dropped while stalled.
	buf := make([]byte, 32<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			p.mu.Lock()
			s := l.server
			p.mu.Unlock()
			if s != nil {
				if _, werr := s.Write(buf[:n]); werr != nil {
					p.mu.Lock()
					if l.server == s { // upstream failed, not a hang
						c.Close()
					}
					p.mu.Unlock()
				}
			}
		}
		if err != nil {
			break
		}
	}
	c.Close()
	p.mu.Lock()
	if l.server != nil {
		l.server.Close()
	}
	p.mu.Unlock()
	p.forget(l)
}

// back copies upstream's replies to the client until upstream closes
// (Redis went, or a hang closed it: then the client side stays open).
func (p *Proxy) back(l *link, s net.Conn) {
	_, _ = io.Copy(l.client, s)
	p.mu.Lock()
	defer p.mu.Unlock()
	if l.server == s { // upstream itself went: so does the client's connection
		l.client.Close()
	}
}

func (p *Proxy) forget(l *link) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, l)
	delete(p.stalled, l)
}

func (p *Proxy) close() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for l := range p.conns {
		l.client.Close()
		if l.server != nil {
			l.server.Close()
		}
	}
}
