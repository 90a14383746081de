package devissuer

import (
	"time"

	"github.com/ory/fosite"
)

// Session is what fosite stores with every code and token of one consent:
// who signed in, the Supabase session, the client and the RFC 8707 resource
// the tokens are bound to. fosite clones it into each refreshed token, so a
// whole refresh-token family carries the same SessionID and Resource.
type Session struct {
	Subject   string
	Email     string
	Role      string
	SessionID string
	ClientID  string
	// Resource is the RFC 8707 resource indicator given at authorize; the
	// token endpoint requires the same value and the access token's aud is
	// ["authenticated", Resource].
	Resource string
	AuthTime time.Time
	// Nonce is the OIDC nonce of the authorize request, echoed in id_token.
	Nonce string

	ExpiresAt map[fosite.TokenType]time.Time
}

var _ fosite.Session = (*Session)(nil)

// SetExpiresAt implements fosite.Session.
func (s *Session) SetExpiresAt(key fosite.TokenType, exp time.Time) {
	if s.ExpiresAt == nil {
		s.ExpiresAt = map[fosite.TokenType]time.Time{}
	}
	s.ExpiresAt[key] = exp
}

// GetExpiresAt implements fosite.Session.
func (s *Session) GetExpiresAt(key fosite.TokenType) time.Time {
	return s.ExpiresAt[key]
}

// GetUsername implements fosite.Session.
func (s *Session) GetUsername() string { return s.Email }

// GetSubject implements fosite.Session.
func (s *Session) GetSubject() string { return s.Subject }

// Clone implements fosite.Session.
func (s *Session) Clone() fosite.Session {
	if s == nil {
		return nil
	}
	c := *s
	c.ExpiresAt = make(map[fosite.TokenType]time.Time, len(s.ExpiresAt))
	for k, v := range s.ExpiresAt {
		c.ExpiresAt[k] = v
	}
	return &c
}
