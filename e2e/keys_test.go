package e2e

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// TestKeyRotation rotates the issuer's signing key twice while the server
// runs (once in process, once through the dev issuer's admin endpoint, as
// an operator of the binary would) and wants tokens under each new kid
// accepted without a restart, and tokens under the retired kid still
// accepted until they expire.
//
// The server learns a new kid by re-fetching the JWKS when a token names
// one it does not hold, at most once per auth.DefaultRefetchInterval; the
// shared clock is moved past that interval before each new kid arrives, so
// the test exercises the default configuration and never waits.
func TestKeyRotation(t *testing.T) {
	p := newPair(t, pairConfig{Issuer: devissuer.Options{DevAdmin: true}})
	srv, iss := p.Server, p.Issuer
	cfg := iss.Config(t)

	before := iss.Token(t, cfg, srv.Endpoint, "")
	oldKid := iss.CurrentKeyID()
	wantSampleResult(t, estimateFare(t, srv.Endpoint, bearer(before.AccessToken)))

	rotations := []struct {
		name   string
		rotate func(t *testing.T) string
	}{
		{"RotateKey", func(t *testing.T) string { return must(iss.RotateKey()) }},
		{"POST /auth/v1/admin/rotate-key", func(t *testing.T) string {
			resp, err := http.Post(iss.IssuerURL()+"/admin/rotate-key", "application/json", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("rotate-key: %d %s", resp.StatusCode, b)
			}
			return iss.CurrentKeyID()
		}},
	}
	prevKid := oldKid
	for _, r := range rotations {
		t.Run(r.name, func(t *testing.T) {
			kid := r.rotate(t)
			if kid == prevKid {
				t.Fatalf("kid did not change: %s", kid)
			}
			p.Clock.Advance(auth.DefaultRefetchInterval + time.Second)

			tok := iss.Token(t, cfg, srv.Endpoint, "")
			if h, _ := jwtParts(t, tok.AccessToken); h["kid"] != kid {
				t.Fatalf("token kid %v, want the new %s", h["kid"], kid)
			}
			mark := srv.Logs.Mark()
			wantSampleResult(t, estimateFare(t, srv.Endpoint, bearer(tok.AccessToken)))
			if got := srv.Logs.RefusalsSince(mark); len(got) != 0 {
				t.Errorf("refusals logged for a token under the new kid: %q", got)
			}
			// The token signed before any rotation is still good.
			wantSampleResult(t, estimateFare(t, srv.Endpoint, bearer(before.AccessToken)))
			prevKid = kid
		})
	}
}

// TestIssuerUnreachableAtStart starts the server while nothing listens at
// the issuer's address: the server comes up, /readyz says not ready, calls
// are refused with the usual 401; once the issuer appears there, /readyz
// turns ready (the verifier's background loader retries with backoff) and
// a token from the flow works.
func TestIssuerUnreachableAtStart(t *testing.T) {
	reserved := listen(t)
	issuerAddr := reserved.Addr().String()
	reserved.Close() // nothing listens there now

	srvLn := listen(t)
	srv := startServer(t, srvLn, server.Options{Auth: &auth.Config{Issuer: "http://" + issuerAddr + devissuer.IssuerPath}}, trident.Options{})

	status, body := readyz(t, srv.Base)
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "not ready") {
		t.Errorf("/readyz with the issuer down: %d %q, want 503 not ready", status, body)
	}
	// /healthz is liveness: the process is fine.
	if resp, err := http.Get(srv.Base + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz with the issuer down: %v %v, want 200", resp, err)
	} else {
		resp.Body.Close()
	}
	// Any token is refused meanwhile, with the same 401.
	forged := sign(t, jose.ES256, mustECKey(t), "some-kid", validClaims("http://"+issuerAddr+devissuer.IssuerPath, srv.Endpoint, time.Now()))
	checkRefusal(t, srv, bearer(forged), auth.ReasonKeysUnavailable)

	ln, err := net.Listen("tcp", issuerAddr)
	if err != nil {
		t.Fatalf("re-listening on the reserved issuer address %s (another process took the port?): %v", issuerAddr, err)
	}
	iss := startIssuerOn(t, ln, devissuer.Options{Resources: []string{srv.Endpoint}})
	waitReady(t, srv.Base)

	tok := iss.Token(t, iss.Config(t), srv.Endpoint, "")
	wantSampleResult(t, estimateFare(t, srv.Endpoint, bearer(tok.AccessToken)))
}
