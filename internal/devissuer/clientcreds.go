package devissuer

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/uuid"
	"github.com/ory/fosite"
)

// ServiceClient is a confidential client registered at start for the
// client_credentials grant (RFC 6749 section 4.4): a service that calls
// another resource as itself, as Relay calls Trident with
// RELAY_TRIDENT_CLIENT_ID and RELAY_TRIDENT_CLIENT_SECRET. It
// authenticates with HTTP Basic (client_secret_basic) or the form
// (client_secret_post) and must name the resource (RFC 8707).
type ServiceClient struct {
	ID     string
	Secret string
}

// registerServiceClients stores Options.ServiceClients, their secrets
// hashed as DCR's are.
func (i *Issuer) registerServiceClients(ctx context.Context) error {
	for _, sc := range i.opts.ServiceClients {
		if sc.ID == "" || sc.Secret == "" {
			return fmt.Errorf("devissuer: service client %q needs an id and a secret", sc.ID)
		}
		hash, err := i.config.GetSecretsHasher(ctx).Hash(ctx, []byte(sc.Secret))
		if err != nil {
			return fmt.Errorf("devissuer: hash the secret of %s: %w", sc.ID, err)
		}
		c := &Client{
			ID: sc.ID, SecretHash: hash, Name: sc.ID,
			RedirectURIs:            []string{},
			GrantTypes:              []string{"client_credentials"},
			ResponseTypes:           []string{},
			TokenEndpointAuthMethod: "client_secret_basic",
			IssuedAt:                i.opts.Now().Unix(),
		}
		if err := i.store.saveClient(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// clientCredentials completes a client_credentials request fosite has
// authenticated: the token is bound to the one resource named (RFC 8707,
// on the allow-list), carries the requested scopes, and is the client's
// own: sub and client_id are the client's id, with Supabase's other claims
// as for a user token so a resource server checks it the same way.
func (i *Issuer) clientCredentials(w http.ResponseWriter, r *http.Request, ar fosite.AccessRequester, sess *Session) bool {
	ctx := r.Context()
	resources := ar.GetRequestForm()["resource"]
	if err := i.checkResourceParam(resources); err != nil {
		i.provider.WriteAccessError(ctx, w, ar, err)
		return false
	}
	for _, s := range ar.GetRequestedScopes() {
		if !ar.GetGrantedScopes().Has(s) {
			ar.GrantScope(s)
		}
	}
	id := ar.GetClient().GetID()
	sess.Subject, sess.ClientID, sess.Resource = id, id, resources[0]
	sess.SessionID, sess.AuthTime = uuid.NewString(), i.opts.Now()
	return true
}
