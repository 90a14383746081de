package trident_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
	"github.com/tridenttaxis/trident-mcp/internal/devissuer/devissuertest"
	"github.com/tridenttaxis/trident-mcp/server"
	"github.com/tridenttaxis/trident-mcp/server/auth"
	"github.com/tridenttaxis/trident-mcp/server/trident"
)

// BenchmarkEstimateFareOAuth is BenchmarkEstimateFare in OAuth mode, with
// the one token a client reuses: the difference between the two is what
// OAuth mode costs per call once the token's verdict is cached.
func BenchmarkEstimateFareOAuth(b *testing.B) {
	iss := devissuertest.New(b, devissuer.Options{})
	const resource = "http://localhost:8080/mcp"
	token, err := iss.MintAccessToken(devissuer.TokenClaims{Resource: resource, ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		b.Fatal(err)
	}
	srv := newServer(b, &opts{host: server.Options{Auth: &auth.Config{Issuer: iss.IssuerURL(), HTTPClient: iss.HTTP.Client()}},
		ep: trident.Options{ResourceURL: resource}})
	h := srv.Handler()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}}}`
	headers := mcpHeaders()
	headers.Set("Authorization", "Bearer "+token)
	call := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header = headers
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for deadline := time.Now().Add(10 * time.Second); call().Code == http.StatusUnauthorized; { // keys load in the background
		if time.Now().After(deadline) {
			b.Fatal("signing keys never loaded")
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if rec := call(); rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(`"fareGBP":62.4`)) {
			b.Fatalf("unexpected reply %d %s", rec.Code, rec.Body)
		}
	}
}
