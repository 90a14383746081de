package oauth_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/client/oauth"
	"github.com/tridenttaxis/trident-mcp/client/trident"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/trident/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/faultserver"
)

var t0 = time.Date(2025, 6, 18, 12, 0, 0, 0, time.UTC)

// handshakeEra makes a client speak 2025-06-18 at once, without the
// server/discover it sends first by default: these tests count the
// requests that carry a token.
var handshakeEra = client.WithProtocolVersion(client.DocumentedProtocolVersion)

// setup starts an OAuth-mode fault server, grants a token family and stores
// it with an expiry the client believes is an hour away.
func setup(t *testing.T, expiry time.Time) (*faultserver.Env, *oauth.MemoryStore, *oauth.Source, *trident.Client) {
	t.Helper()
	env := faultserver.Start(t, faultserver.Options{}, true)
	env.Issuer.Now = func() time.Time { return t0 }
	access, refresh := env.Issuer.Grant()
	store := &oauth.MemoryStore{}
	store.Save(context.Background(), &oauth.Record{
		Issuer: env.IssuerURL, TokenEndpoint: env.IssuerURL + "/oauth/token", ClientID: "test-client",
		Resource: env.Endpoint, AccessToken: access, RefreshToken: refresh, Expiry: expiry,
	})
	src := oauth.NewSource(store, oauth.WithHTTPClient(env.HTTP.Client()), oauth.WithNow(func() time.Time { return t0 }))
	c, err := trident.New(env.Endpoint, client.WithTokenSource(src), client.WithHTTPClient(env.HTTP.Client()), handshakeEra)
	if err != nil {
		t.Fatal(err)
	}
	return env, store, src, c
}

func stored(t *testing.T, s oauth.Store) *oauth.Record {
	t.Helper()
	r, err := s.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestUnauthorizedRefreshesOnceThenSucceeds(t *testing.T) {
	env, store, src, c := setup(t, t0.Add(time.Hour))
	before := stored(t, store)
	env.Issuer.ExpireAccess() // the server now refuses the token the client still trusts

	if _, err := c.GetServiceInfo(context.Background(), mcptypes.GetServiceInfoInput{}); err != nil {
		t.Fatal(err)
	}
	after := stored(t, store)
	if env.Issuer.Refreshes() != 1 || src.Refreshes() != 1 {
		t.Errorf("refreshes: issuer %d, source %d; want 1", env.Issuer.Refreshes(), src.Refreshes())
	}
	if after.RefreshToken == before.RefreshToken || after.AccessToken == before.AccessToken {
		t.Error("the rotated pair was not persisted")
	}
	reqs := env.Server.Requests()
	if len(reqs) != 2 {
		t.Fatalf("server saw %d requests, want 2 (401, then the retry)", len(reqs))
	}
	if reqs[0].Token != before.AccessToken || reqs[1].Token != after.AccessToken {
		t.Errorf("tokens sent = %q, %q; want the old one, then the persisted new one", reqs[0].Token, reqs[1].Token)
	}
}

// saveSpy records how many calls had reached the server when tokens were
// saved: the new pair must be persisted before the retry uses it.
type saveSpy struct {
	oauth.MemoryStore
	env       *faultserver.Env
	callsSeen []int
}

func (s *saveSpy) Save(ctx context.Context, r *oauth.Record) error {
	if s.env != nil {
		s.callsSeen = append(s.callsSeen, s.env.Server.Count(client.MethodToolsCall))
	}
	return s.MemoryStore.Save(ctx, r)
}

func TestRotatedTokensArePersistedBeforeUse(t *testing.T) {
	env := faultserver.Start(t, faultserver.Options{}, true)
	access, refresh := env.Issuer.Grant()
	spy := &saveSpy{}
	spy.Save(context.Background(), &oauth.Record{TokenEndpoint: env.IssuerURL + "/oauth/token", ClientID: "c", AccessToken: access, RefreshToken: refresh})
	spy.env = env
	src := oauth.NewSource(spy, oauth.WithHTTPClient(env.HTTP.Client()))
	c, _ := trident.New(env.Endpoint, client.WithTokenSource(src), client.WithHTTPClient(env.HTTP.Client()), handshakeEra)
	env.Issuer.ExpireAccess()
	if _, err := c.GetServiceInfo(context.Background(), mcptypes.GetServiceInfoInput{}); err != nil {
		t.Fatal(err)
	}
	if len(spy.callsSeen) != 1 || spy.callsSeen[0] != 1 {
		t.Errorf("saves happened after %v calls, want one save after the first (refused) call only", spy.callsSeen)
	}
}

func TestRevokedFamilyNeedsReconsent(t *testing.T) {
	env, store, _, c := setup(t, t0.Add(time.Hour))
	env.Issuer.RevokeFamilyOf(stored(t, store).RefreshToken)
	env.Issuer.ExpireAccess()

	_, err := c.GetServiceInfo(context.Background(), mcptypes.GetServiceInfoInput{})
	if !errors.Is(err, oauth.ErrReconsentRequired) {
		t.Fatalf("error = %v, want ErrReconsentRequired", err)
	}
	var tr *client.TransportError
	if !errors.As(err, &tr) || tr.StatusCode != 401 || tr.Code != errcodes.Unauthorized {
		t.Errorf("error = %v, want it to carry the 401 UNAUTHORIZED", err)
	}
	if got := env.Server.Count(client.MethodToolsCall); got != 1 {
		t.Errorf("server saw %d calls, want 1: nothing is resent after a failed refresh", got)
	}
}

func TestReusedRefreshTokenRevokesTheFamily(t *testing.T) {
	env, store, _, c := setup(t, t0.Add(time.Hour))
	old := stored(t, store)
	env.Issuer.ExpireAccess()
	if _, err := c.GetServiceInfo(context.Background(), mcptypes.GetServiceInfoInput{}); err != nil {
		t.Fatal(err)
	}
	// A second program that kept the spent refresh token uses it.
	stale := &oauth.MemoryStore{}
	stale.Save(context.Background(), old)
	other := oauth.NewSource(stale, oauth.WithHTTPClient(env.HTTP.Client()))
	if _, err := other.Refresh(context.Background(), old.AccessToken); !errors.Is(err, oauth.ErrReconsentRequired) {
		t.Fatalf("reuse: error = %v, want ErrReconsentRequired", err)
	}
	// The whole family is gone, for the first program too.
	env.Issuer.ExpireAccess()
	if _, err := c.GetServiceInfo(context.Background(), mcptypes.GetServiceInfoInput{}); !errors.Is(err, oauth.ErrReconsentRequired) {
		t.Errorf("after reuse: error = %v, want ErrReconsentRequired", err)
	}
}

func TestConcurrentUnauthorizedCallsRefreshOnce(t *testing.T) {
	env, _, src, c := setup(t, t0.Add(time.Hour))
	env.Issuer.ExpireAccess()
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			_, err := c.EstimateFare(context.Background(), mcptypes.EstimateFareInput{Pickup: "Helensburgh", Dropoff: "Glasgow Airport"})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("call failed: %v", err)
		}
	}
	if env.Issuer.Refreshes() != 1 || src.Refreshes() != 1 {
		t.Errorf("refreshes: issuer %d, source %d; want exactly 1", env.Issuer.Refreshes(), src.Refreshes())
	}
	if got := env.Server.Count(client.MethodToolsCall); got > 2*n {
		t.Errorf("server saw %d calls, want at most %d", got, 2*n)
	}
}

func TestProactiveRefreshBeforeExpiry(t *testing.T) {
	env, store, src, c := setup(t, t0.Add(30*time.Second)) // inside the 60 s leeway
	before := stored(t, store)
	if _, err := c.GetServiceInfo(context.Background(), mcptypes.GetServiceInfoInput{}); err != nil {
		t.Fatal(err)
	}
	if src.Refreshes() != 1 {
		t.Errorf("source refreshed %d times, want 1", src.Refreshes())
	}
	reqs := env.Server.Requests()
	if len(reqs) != 1 || reqs[0].Token == before.AccessToken {
		t.Errorf("server saw %d requests (first token old: %v), want one, with the fresh token", len(reqs), len(reqs) > 0 && reqs[0].Token == before.AccessToken)
	}
}

func TestSecond401IsNotRefreshedAgain(t *testing.T) {
	env, _, src, c := setup(t, t0.Add(time.Hour))
	env.Issuer.ExpireAccess()
	env.Server.Enqueue(faultserver.Fault{Status: 401, Header: map[string]string{"WWW-Authenticate": `Bearer resource_metadata="` + env.MetadataURL + `"`}})
	_, err := c.GetServiceInfo(context.Background(), mcptypes.GetServiceInfoInput{})
	var tr *client.TransportError
	if !errors.As(err, &tr) || tr.StatusCode != 401 || tr.ResourceMetadata != env.MetadataURL {
		t.Fatalf("error = %v, want the second 401 with its resource_metadata", err)
	}
	if src.Refreshes() != 1 || env.Server.Count(client.MethodToolsCall) != 2 {
		t.Errorf("refreshes %d, calls %d; want 1 and 2", src.Refreshes(), env.Server.Count(client.MethodToolsCall))
	}
}

func TestDiscoveryFromWWWAuthenticate(t *testing.T) {
	env := faultserver.Start(t, faultserver.Options{}, true)
	c, _ := trident.New(env.Endpoint, client.WithHTTPClient(env.HTTP.Client()))
	_, err := c.GetServiceInfo(context.Background(), mcptypes.GetServiceInfoInput{})
	var tr *client.TransportError
	if !errors.As(err, &tr) || tr.StatusCode != 401 || tr.RPC == nil || tr.RPC.Code != -32001 {
		t.Fatalf("error = %v, want 401 with JSON-RPC -32001", err)
	}
	if tr.ResourceMetadata != env.MetadataURL {
		t.Fatalf("resource_metadata = %q, want %q", tr.ResourceMetadata, env.MetadataURL)
	}
	for name, metaURL := range map[string]string{"from the challenge": tr.ResourceMetadata, "from well-known": ""} {
		d, err := oauth.Discover(context.Background(), env.HTTP.Client(), env.Endpoint, metaURL)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Server.Issuer != env.IssuerURL || d.Server.TokenEndpoint != env.IssuerURL+"/oauth/token" || d.Resource.Resource != env.Endpoint {
			t.Errorf("%s: discovered %+v / %+v", name, d.Resource, d.Server)
		}
	}
}

func TestLoginThenCall(t *testing.T) {
	env := faultserver.Start(t, faultserver.Options{}, true)
	store := &oauth.MemoryStore{}
	var visited string
	browser := &http.Client{} // follows the issuer's redirect to the loopback callback
	rec, err := oauth.Login(context.Background(), oauth.LoginConfig{
		Endpoint: env.Endpoint, HTTPClient: env.HTTP.Client(), Store: store, ClientName: "test",
		OpenURL: func(u string) error {
			visited = u
			resp, err := browser.Get(u)
			if err != nil {
				return err
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("callback answered %s", resp.Status)
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"code_challenge_method=S256", "code_challenge=", "resource=", "state="} {
		if !strings.Contains(visited, want) {
			t.Errorf("authorization URL %q lacks %q", visited, want)
		}
	}
	if rec.RefreshToken == "" || rec.ClientID == "" || rec.Resource != env.Endpoint || stored(t, store).AccessToken != rec.AccessToken {
		t.Errorf("record = %+v, want tokens, client id and resource, saved", rec)
	}
	src := oauth.NewSource(store, oauth.WithHTTPClient(env.HTTP.Client()))
	c, _ := trident.New(env.Endpoint, client.WithTokenSource(src), client.WithHTTPClient(env.HTTP.Client()))
	if _, err := c.GetServiceInfo(context.Background(), mcptypes.GetServiceInfoInput{}); err != nil {
		t.Errorf("call with the login's token: %v", err)
	}
}

// gatedStore holds every Save until release is closed.
type gatedStore struct {
	oauth.MemoryStore
	saving, release chan struct{}
}

func (g *gatedStore) Save(ctx context.Context, r *oauth.Record) error {
	if g.saving != nil {
		close(g.saving)
		<-g.release
	}
	return g.MemoryStore.Save(ctx, r)
}

// While the rotated pair is being saved, no caller may be handed the new
// access token: a crash before the save ends would lose the tokens a
// request already ran on.
func TestRotatedTokenIsNotHandedOutBeforeItIsSaved(t *testing.T) {
	env := faultserver.Start(t, faultserver.Options{}, true)
	access, refresh := env.Issuer.Grant()
	store := &gatedStore{}
	store.Save(context.Background(), &oauth.Record{TokenEndpoint: env.IssuerURL + "/oauth/token", ClientID: "c",
		AccessToken: access, RefreshToken: refresh, Expiry: t0.Add(time.Hour)})
	store.saving, store.release = make(chan struct{}), make(chan struct{})
	src := oauth.NewSource(store, oauth.WithHTTPClient(env.HTTP.Client()), oauth.WithNow(func() time.Time { return t0 }))

	refreshed := make(chan string, 1)
	go func() {
		tok, err := src.Refresh(context.Background(), access)
		if err != nil {
			t.Errorf("Refresh: %v", err)
		}
		refreshed <- tok
	}()
	<-store.saving
	if tok, err := src.Token(context.Background()); err != nil || tok != access {
		t.Errorf("Token during the save = %q, %v; want the old, saved token %q", tok, err, access)
	}
	close(store.release)
	fresh := <-refreshed
	if fresh == access || fresh != stored(t, store).AccessToken {
		t.Errorf("Refresh returned %q; want a new token, the one saved", fresh)
	}
	if tok, _ := src.Token(context.Background()); tok != fresh {
		t.Errorf("Token after the save = %q, want %q", tok, fresh)
	}
}

// Once the issuer says the family is revoked, the source does not present
// the dead refresh token again.
func TestRevokedFamilyIsNotRefreshedAgain(t *testing.T) {
	env, store, src, _ := setup(t, t0.Add(time.Hour))
	env.Issuer.RevokeFamilyOf(stored(t, store).RefreshToken)
	for i := range 3 {
		if _, err := src.Refresh(context.Background(), stored(t, store).AccessToken); !errors.Is(err, oauth.ErrReconsentRequired) {
			t.Fatalf("refresh %d: %v, want ErrReconsentRequired", i, err)
		}
	}
	if _, err := src.Token(context.Background()); !errors.Is(err, oauth.ErrReconsentRequired) {
		t.Errorf("Token after revocation: %v, want ErrReconsentRequired", err)
	}
	if env.Issuer.Refreshes() != 1 {
		t.Errorf("the issuer saw %d refresh grants, want 1", env.Issuer.Refreshes())
	}
}
