package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"
)

// revision returns the revision calls carry, choosing it on first use: the
// one [WithProtocolVersion] names when it is a handshake revision, else
// whatever [Client.negotiate] finds.
func (c *Client) revision(ctx context.Context, s *settings) (string, error) {
	c.mu.Lock()
	v := c.version
	c.mu.Unlock()
	if v != "" {
		return v, nil
	}
	if !isStateless(s.protocolVersion) {
		c.mu.Lock()
		if c.version == "" {
			c.version = s.protocolVersion
		}
		v = c.version
		c.mu.Unlock()
		return v, nil
	}
	err := c.shared(ctx, "negotiate", func() error {
		c.mu.Lock()
		done := c.version != ""
		c.mu.Unlock()
		if done {
			return nil // another caller negotiated meanwhile
		}
		return c.negotiate(ctx, s)
	})
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version, nil
}

// negotiate asks the server which revisions it speaks with server/discover
// in the revision the client prefers (SEP-2575), and settles on the newest
// both speak:
//
//   - an answer listing a stateless revision the client speaks: that one,
//     and the answer is kept ([Client.Discover]);
//   - a refusal of the revision listing others (-32022): discover again in
//     the newest stateless one of them, once; a list of handshake revisions
//     only: the newest of those;
//   - any other answer (a method the server does not know, a 400 asking
//     for a session, an answer without supportedVersions): a server of the
//     handshake revisions, met as [Client.doHandshake] does.
//
// A failure that says nothing about revisions (a network error, a 5xx
// after the retries, a 401 no authorization answered) ends the call: the
// server may well speak the stateless revision once it is back.
func (c *Client) negotiate(ctx context.Context, s *settings) error {
	want := s.protocolVersion
	for try := 0; ; try++ {
		res, err := c.discover(ctx, s, want)
		if err == nil {
			v := want
			if !slices.Contains(res.SupportedVersions, want) {
				v = newestShared(res.SupportedVersions)
			}
			if !isStateless(v) {
				c.settle(s, res.SupportedVersions)
				return nil
			}
			c.mu.Lock()
			c.version, c.offered = v, res.SupportedVersions
			c.mu.Unlock()
			return nil
		}
		if offered := offeredVersions(err); offered != nil {
			if v := newestShared(offered); isStateless(v) && try == 0 {
				want = v
				continue
			}
			c.settle(s, offered)
			return nil
		}
		if !saysNothingOfRevisions(err) {
			return err
		}
		c.settle(s, nil)
		return nil
	}
}

// saysNothingOfRevisions reports whether a failed server/discover tells the
// client that the server is of the handshake revisions (it answered, but
// not as a stateless server does), rather than that it could not answer.
func saysNothingOfRevisions(err error) bool {
	var tr *TransportError
	if !errors.As(err, &tr) {
		return true // a JSON-RPC error: the server does not know server/discover
	}
	switch {
	case tr.StatusCode == 0, tr.Temporary(), tr.StatusCode == http.StatusUnauthorized, tr.StatusCode == http.StatusForbidden:
		return false
	}
	return true
}

// settle meets a server of the handshake revisions: requests carry the
// revision [WithProtocolVersion] names when it is one, else the newest the
// server listed, else the one the Trident specification documents; an
// initialize may move to another ([Client.handshakeVersion]).
func (c *Client) settle(s *settings, offered []string) {
	v := DocumentedProtocolVersion
	if !isStateless(s.protocolVersion) {
		v = s.protocolVersion
	} else if shared := newestSharedHandshake(offered); shared != "" {
		v = shared
	}
	c.mu.Lock()
	c.version, c.offered = v, offered
	c.mu.Unlock()
}

// handshakeVersion is the revision initialize offers: the one
// [WithProtocolVersion] names when it is a handshake revision, else the
// newest handshake revision the server listed, else 2025-11-25. The server
// answers with the one it picks (the lifecycle's version negotiation).
func (c *Client) handshakeVersion(s *settings) string {
	if !isStateless(s.protocolVersion) {
		return s.protocolVersion
	}
	c.mu.Lock()
	offered := c.offered
	c.mu.Unlock()
	if v := newestSharedHandshake(offered); v != "" {
		return v
	}
	return Revision20251125
}

// renegotiate handles a server refusing the revision v a call carried
// while listing those it speaks: the call is sent again in the newest
// revision both speak. It reports whether there is one to try.
func (c *Client) renegotiate(v string, err error) bool {
	offered := offeredVersions(err)
	next := newestShared(offered)
	if next == "" || next == v {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.version, c.offered = next, offered
	c.sessionID, c.initialized, c.discovery = "", false, nil
	return true
}

// DiscoverResult is the server's answer to server/discover (MCP
// 2026-07-28): the revisions it speaks and what it offers. Capabilities
// are kept as the server sent them.
type DiscoverResult struct {
	SupportedVersions []string        `json:"supportedVersions"`
	Capabilities      json.RawMessage `json:"capabilities,omitempty"`
	Instructions      string          `json:"instructions,omitempty"`
	// ServerInfo is the server's self-description: _meta's
	// io.modelcontextprotocol/serverInfo, or the serverInfo member some
	// servers send beside it. For display and logs only.
	ServerInfo *Implementation `json:"-"`
	// TTL and CacheScope are the answer's caching fields: how long it stays
	// fresh, and whether ("public") or not ("private") it may be reused
	// across credentials.
	TTL        time.Duration `json:"-"`
	CacheScope string        `json:"-"`
}

// Implementation names an MCP client or server.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// ErrHandshakeRevision is returned by [Client.Discover] for a server of the
// handshake revisions, which have no server/discover.
var ErrHandshakeRevision = errors.New("client: the server speaks a revision before 2026-07-28, which has no server/discover")

// cachedDiscovery is a server/discover answer with when, and for whom, it
// was fetched.
type cachedDiscovery struct {
	res  *DiscoverResult
	at   time.Time
	auth string
}

// Discover returns the server's server/discover answer, negotiating the
// revision first if no call has yet. The answer is reused while its ttlMs
// says it is fresh, and a "private" one only with the credentials that
// fetched it; after that it is fetched again. A server of the handshake
// revisions gets [ErrHandshakeRevision].
func (c *Client) Discover(ctx context.Context, opts ...CallOption) (*DiscoverResult, error) {
	s := c.settings(opts)
	v, err := c.revision(ctx, s)
	if err != nil {
		return nil, err
	}
	if !isStateless(v) {
		return nil, fmt.Errorf("%w (it speaks %s)", ErrHandshakeRevision, v)
	}
	auth, err := c.authContext(ctx, s)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	d := c.discovery
	c.mu.Unlock()
	if d != nil && fresh(d.at, d.res.TTL, s.clock.Now()) && (d.res.CacheScope == "public" || d.auth == auth) {
		return d.res, nil
	}
	return c.discover(ctx, s, v)
}

// discover sends server/discover in revision v and keeps a successful
// answer for [Client.Discover].
func (c *Client) discover(ctx context.Context, s *settings, v string) (*DiscoverResult, error) {
	var raw struct {
		DiscoverResult
		TTLMs      *int64          `json:"ttlMs"`
		CacheScope string          `json:"cacheScope"`
		ServerInfo *Implementation `json:"serverInfo"`
		Meta       struct {
			ServerInfo *Implementation `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	hs := *s
	hs.progress = nil
	if err := c.exchangeStateless(ctx, &hs, v, MethodDiscover, nil, &raw); err != nil {
		return nil, err
	}
	res := raw.DiscoverResult
	res.ServerInfo, res.CacheScope = raw.Meta.ServerInfo, raw.CacheScope
	if res.ServerInfo == nil {
		res.ServerInfo = raw.ServerInfo
	}
	if raw.TTLMs != nil && *raw.TTLMs > 0 {
		res.TTL = time.Duration(*raw.TTLMs) * time.Millisecond
	}
	auth, _ := c.authContext(ctx, s)
	c.mu.Lock()
	c.discovery = &cachedDiscovery{res: &res, at: s.clock.Now(), auth: auth}
	c.mu.Unlock()
	return &res, nil
}

// fresh reports whether something fetched at `at` with time-to-live ttl
// may still be used at now; a zero ttl is stale at once ("SHOULD be
// considered immediately stale").
func fresh(at time.Time, ttl time.Duration, now time.Time) bool {
	return ttl > 0 && now.Sub(at) < ttl
}
