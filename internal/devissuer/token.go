package devissuer

import (
	"net/http"

	"github.com/ory/fosite"
)

// handleToken is the token endpoint. fosite runs the authorization_code
// (with PKCE), refresh_token and client_credentials (for
// Options.ServiceClients) grants, including refresh-token rotation
// and reuse detection; this adds the RFC 8707 check fosite lacks: the
// code exchange must name the same resource the user consented to, and a
// refresh may name it again but no other.
func (i *Issuer) handleToken(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	ar, err := i.provider.NewAccessRequest(ctx, r, new(Session))
	if err != nil {
		i.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	sess, ok := ar.GetSession().(*Session)
	if !ok {
		i.provider.WriteAccessError(ctx, w, ar, fosite.ErrServerError.WithDebugf("session is %T", ar.GetSession()))
		return
	}
	resources := ar.GetRequestForm()["resource"]
	switch {
	case ar.GetGrantTypes().ExactOne("client_credentials"):
		if !i.clientCredentials(w, r, ar, sess) {
			return
		}
	case ar.GetGrantTypes().ExactOne("authorization_code") && len(resources) == 0:
		i.provider.WriteAccessError(ctx, w, ar, fosite.ErrInvalidRequest.WithHint(
			"The resource parameter (RFC 8707) is required with grant_type=authorization_code and must repeat the one sent to /oauth/authorize."))
		return
	case len(resources) > 1:
		i.provider.WriteAccessError(ctx, w, ar, errInvalidTarget("exactly one resource parameter is supported"))
		return
	case len(resources) == 1 && resources[0] != sess.Resource:
		i.provider.WriteAccessError(ctx, w, ar, errInvalidTarget(
			"resource "+resources[0]+" differs from the resource "+sess.Resource+" this grant was consented for"))
		return
	}

	resp, err := i.provider.NewAccessResponse(ctx, ar)
	if err != nil {
		i.provider.WriteAccessError(ctx, w, ar, err)
		return
	}
	// The JWT's exp is iat+AccessTokenTTL by the issuer's clock; say so
	// exactly (fosite would compute 3599 or 3600 from the wall clock).
	resp.SetExpiresIn(i.opts.AccessTokenTTL)
	resp.SetTokenType("bearer")
	if ar.GetGrantedScopes().Has("openid") {
		idToken, err := i.idToken(sess, ar.GetClient().GetID())
		if err != nil {
			i.provider.WriteAccessError(ctx, w, ar, fosite.ErrServerError.WithWrap(err).WithDebug(err.Error()))
			return
		}
		resp.SetExtra("id_token", idToken)
	}
	i.provider.WriteAccessResponse(ctx, w, ar, resp)
}

// handleRevoke is RFC 7009 revocation through fosite: revoking a refresh
// token ends its whole family.
func (i *Issuer) handleRevoke(w http.ResponseWriter, r *http.Request) {
	err := i.provider.NewRevocationRequest(r.Context(), r)
	i.provider.WriteRevocationResponse(r.Context(), w, err)
}

// idToken is the OpenID Connect ID token Supabase's OAuth server returns
// when openid was granted. fosite's OIDC handlers would need their own
// storage and session types for this one JWT, so it is signed here with
// the same key as the access token; aud is the client.
func (i *Issuer) idToken(s *Session, clientID string) (string, error) {
	now := i.opts.Now()
	claims := map[string]any{
		"iss":        i.issuer,
		"sub":        s.Subject,
		"aud":        clientID,
		"iat":        now.Unix(),
		"exp":        now.Add(i.opts.AccessTokenTTL).Unix(),
		"auth_time":  s.AuthTime.Unix(),
		"email":      s.Email,
		"session_id": s.SessionID,
	}
	if s.Nonce != "" {
		claims["nonce"] = s.Nonce
	}
	return i.sign(claims, nil)
}
