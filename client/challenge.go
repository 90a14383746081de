package client

import (
	"context"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Challenge is a server's refusal of a request's credentials: a 401, or a
// 403 whose Bearer challenge says error="insufficient_scope" (the MCP
// authorization spec's step-up, RFC 6750 §3.1).
type Challenge struct {
	// StatusCode is 401 or 403.
	StatusCode int
	// Rejected is the access token the server refused, "" when the request
	// carried none.
	Rejected string
	// ResourceMetadata is the challenge's resource_metadata URL (RFC 9728
	// §5.1), where discovery starts; "" when the server gave none.
	ResourceMetadata string
	// Scopes is the challenge's scope parameter split on spaces: what the
	// server wants the token to carry. Nil when absent.
	Scopes []string
	// Error and Description are the challenge's error and
	// error_description, e.g. "invalid_token", "insufficient_scope".
	Error, Description string
}

// InsufficientScope reports whether the challenge asks for more scopes
// rather than a valid token.
func (c *Challenge) InsufficientScope() bool { return c.Error == "insufficient_scope" }

// Authorizer is a [TokenSource] that answers challenges itself, for example
// by running the OAuth authorization-code flow (client/oauth.Authorizer).
// With one, [TokenSource.Token] may return "" to send a request without
// credentials, and every 401, and every 403 with error="insufficient_scope",
// goes to Authorize instead of Refresh. A request is retried after at most
// two challenges (a 401 then a step-up 403); the Authorizer itself bounds
// how often it runs the flow.
type Authorizer interface {
	TokenSource
	// Authorize returns a token that should satisfy ch. It must not return
	// ch.Rejected again.
	Authorize(ctx context.Context, ch *Challenge) (string, error)
}

// maxChallenges bounds the challenge rounds of one request for an
// Authorizer: a 401 answered by authorizing, then a 403 answered by a
// step-up. A third refusal is the caller's.
const maxChallenges = 2

// challengeOf reads the Bearer challenge of a 401 or 403 response; nil when
// the response is no challenge (any other status, or a 403 that is not
// insufficient_scope: retrying that with another token cannot help).
func challengeOf(resp *http.Response, sent string) *Challenge {
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		return nil
	}
	ch := &Challenge{StatusCode: resp.StatusCode, Rejected: sent}
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	for _, c := range cs {
		if c.Scheme != "bearer" {
			continue
		}
		ch.ResourceMetadata = c.Params["resource_metadata"]
		ch.Scopes = strings.Fields(c.Params["scope"])
		ch.Error, ch.Description = c.Params["error"], c.Params["error_description"]
		break
	}
	if resp.StatusCode == http.StatusForbidden && !ch.InsufficientScope() {
		return nil
	}
	return ch
}
