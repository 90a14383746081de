package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/client/oauth"
	tridentclient "github.com/tridenttaxis/trident-mcp/client/trident"
	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/server/auth"
)

// TestGoClient runs the project's Go client against the pair: the first
// call meets the 401, the oauth.Authorizer discovers, registers, logs in
// through its loopback redirect (the "browser" is a GET with the dev
// issuer's dev_auto_approve parameter) and the call is retried; an hour
// later the client refreshes on its own; once the family is revoked by a
// reused refresh token, the client says re-consent is required, and a new
// authorization works again.
func TestGoClient(t *testing.T) {
	p := newPair(t, pairConfig{})
	srv := p.Server
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	store := &oauth.MemoryStore{}
	opened := 0
	az, err := oauth.NewAuthorizer(oauth.LoginConfig{
		Endpoint:   srv.Endpoint,
		ClientName: "trident e2e",
		OpenURL: func(authURL string) error {
			opened++
			return autoApproveBrowser(authURL, devissuer.DefaultUser.Email)
		},
		Timeout: 20 * time.Second,
		Store:   store,
	}, oauth.WithNow(p.Clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	c, err := tridentclient.New(srv.Endpoint, client.WithTokenSource(az))
	if err != nil {
		t.Fatal(err)
	}

	s := sample(t, "estimate_fare.success")
	var req struct {
		Params struct {
			Arguments mcptypes.EstimateFareInput `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal(s.Request, &req); err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Result struct {
			StructuredContent any `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(s.Response, &resp); err != nil {
		t.Fatal(err)
	}
	wantOut := resp.Result.StructuredContent
	call := func(step string) error {
		t.Helper()
		out, err := c.EstimateFare(ctx, req.Params.Arguments)
		if err != nil {
			return err
		}
		var got any
		b, _ := json.Marshal(out)
		json.Unmarshal(b, &got)
		if d := cmp.Diff(wantOut, got); d != "" {
			t.Errorf("%s: EstimateFare output differs from the seed sample (-want +got):\n%s", step, d)
		}
		return nil
	}

	// First call: 401, login, retry.
	if err := call("first call"); err != nil {
		t.Fatalf("first call: %v", err)
	}
	if opened != 1 || az.Authorizations() != 1 {
		t.Errorf("first call opened the browser %d times, ran %d flows; want 1 and 1", opened, az.Authorizations())
	}
	first, err := store.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first.Resource != srv.Endpoint || first.Issuer != p.Issuer.IssuerURL() || first.RefreshToken == "" {
		t.Errorf("stored record: resource %q issuer %q refresh %t; want %s, %s, true",
			first.Resource, first.Issuer, first.RefreshToken != "", srv.Endpoint, p.Issuer.IssuerURL())
	}

	// An hour later the access token has expired everywhere (issuer,
	// server and client share the clock): the client refreshes before the
	// call, and the refresh token rotates.
	p.Clock.Advance(time.Hour + time.Minute)
	if err := call("after an hour"); err != nil {
		t.Fatalf("after an hour: %v", err)
	}
	second, _ := store.Load(ctx)
	if second.RefreshToken == first.RefreshToken || second.AccessToken == first.AccessToken {
		t.Errorf("the refresh did not rotate the tokens")
	}
	if opened != 1 {
		t.Errorf("a refresh opened the browser (%d opens)", opened)
	}
	// The expired first access token is now refused by the server.
	checkRefusal(t, srv, bearer(first.AccessToken), "expired")

	// Someone replays the first, rotated refresh token: the family is
	// revoked, for them and for us.
	stolen := &oauth.MemoryStore{}
	if err := stolen.Save(ctx, first); err != nil {
		t.Fatal(err)
	}
	thief := oauth.NewSource(stolen, oauth.WithNow(p.Clock.Now))
	if _, err := thief.Refresh(ctx, first.AccessToken); !errors.Is(err, oauth.ErrReconsentRequired) {
		t.Errorf("replaying a rotated refresh token: %v, want ErrReconsentRequired", err)
	}
	// Our next call's proactive refresh finds the family revoked: the call
	// goes out without a token, meets the 401, and the authorizer runs the
	// flow again (the user consents anew) before the single retry.
	// The stale access token is not tried on the way: the server refuses
	// one anonymous request, and nothing else.
	p.Clock.Advance(time.Hour + time.Minute)
	mark := srv.Logs.Mark()
	if err := call("after the family was revoked"); err != nil {
		t.Fatalf("call after the family was revoked: %v, want re-consent and success", err)
	}
	if d := cmp.Diff([]string{string(auth.ReasonMissingCredentials)}, srv.Logs.RefusalsSince(mark)); d != "" {
		t.Errorf("refusals while re-consenting (-want +got):\n%s", d)
	}
	third, _ := store.Load(ctx)
	if third.RefreshToken == second.RefreshToken {
		t.Errorf("re-consent did not store a new grant")
	}
	if opened != 2 || az.Authorizations() != 2 {
		t.Errorf("after re-consent: %d browser opens, %d flows; want 2 and 2", opened, az.Authorizations())
	}
}

// autoApproveBrowser stands in for the user's browser: it opens authURL
// with the dev issuer's dev_auto_approve parameter and follows the
// redirects to the client's loopback callback, which must answer 200.
func autoApproveBrowser(authURL, email string) error {
	u, err := url.Parse(authURL)
	if err != nil {
		return err
	}
	q := u.Query()
	q.Set("dev_auto_approve", email)
	u.RawQuery = q.Encode()
	resp, err := http.Get(u.String())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("browser ended at %s with %d: %s", resp.Request.URL, resp.StatusCode, b)
	}
	return nil
}
