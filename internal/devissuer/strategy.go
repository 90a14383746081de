package devissuer

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ory/fosite"
	"github.com/ory/fosite/handler/oauth2"
)

// tokenStrategy is fosite's HMAC strategy for authorization codes and
// refresh tokens, with access tokens replaced by ES256 JWTs shaped like
// Supabase's. fosite's own JWT strategy (oauth2.DefaultJWTStrategy) builds
// its claims from a fixed struct and cannot emit Supabase's role,
// session_id, email and aal claims or its ["authenticated", resource]
// audience, so only this part is ours; the signing itself is go-jose's.
type tokenStrategy struct {
	*oauth2.HMACSHAStrategy
	iss *Issuer
}

var _ oauth2.CoreStrategy = (*tokenStrategy)(nil)

// AccessTokenSignature implements oauth2.AccessTokenStrategy: the JWS
// signature part keys the access-token session in the store.
func (s *tokenStrategy) AccessTokenSignature(_ context.Context, token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ""
	}
	return parts[2]
}

// GenerateAccessToken implements oauth2.AccessTokenStrategy.
func (s *tokenStrategy) GenerateAccessToken(_ context.Context, req fosite.Requester) (string, string, error) {
	sess, ok := req.GetSession().(*Session)
	if !ok {
		return "", "", fmt.Errorf("devissuer: session is %T, want *devissuer.Session", req.GetSession())
	}
	claims := s.iss.flowClaims(sess, req.GetClient().GetID(), req.GetGrantedScopes())
	token, err := s.iss.sign(claims, nil)
	if err != nil {
		return "", "", err
	}
	return token, s.AccessTokenSignature(context.Background(), token), nil
}

// ValidateAccessToken implements oauth2.AccessTokenStrategy (used by
// revocation): signature against the JWKS and exp against the clock.
func (s *tokenStrategy) ValidateAccessToken(_ context.Context, _ fosite.Requester, token string) error {
	claims, err := s.iss.keys.verify(token)
	if err != nil {
		return fosite.ErrTokenSignatureMismatch.WithWrap(err).WithDebug(err.Error())
	}
	exp, _ := claims["exp"].(float64)
	if int64(exp) <= s.iss.opts.Now().Unix() {
		return fosite.ErrTokenExpired.WithWrap(errors.New("access token expired"))
	}
	return nil
}
