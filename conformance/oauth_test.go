package conformance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMetadataURLs(t *testing.T) {
	for _, tc := range []struct {
		issuer string
		want   []string
	}{
		{"https://ref.supabase.co/auth/v1", []string{
			"https://ref.supabase.co/.well-known/oauth-authorization-server/auth/v1",
			"https://ref.supabase.co/.well-known/openid-configuration/auth/v1",
			"https://ref.supabase.co/auth/v1/.well-known/oauth-authorization-server",
			"https://ref.supabase.co/auth/v1/.well-known/openid-configuration",
		}},
		{"http://127.0.0.1:9999/", []string{
			"http://127.0.0.1:9999/.well-known/oauth-authorization-server",
			"http://127.0.0.1:9999/.well-known/openid-configuration",
		}},
	} {
		if d := cmp.Diff(tc.want, MetadataURLs(tc.issuer)); d != "" {
			t.Errorf("MetadataURLs(%q) (-want +got):\n%s", tc.issuer, d)
		}
	}
}

// An issuer that serves its metadata only at one of the places is found
// there; one that serves it nowhere usable draws an error naming every
// place tried.
func TestDiscoverIssuerTriesEachPlace(t *testing.T) {
	const doc = `{"issuer":"ISS","authorization_endpoint":"ISS/authorize","token_endpoint":"ISS/token"}`
	for _, tc := range []struct {
		name, servedAt, body string
		wantErr              bool
	}{
		{"RFC 8414 form", "/.well-known/oauth-authorization-server/auth/v1", doc, false},
		{"appended form", "/auth/v1/.well-known/oauth-authorization-server", doc, false},
		{"OpenID appended form", "/auth/v1/.well-known/openid-configuration", doc, false},
		{"document without endpoints", "/auth/v1/.well-known/oauth-authorization-server", `{"issuer":"ISS"}`, true},
		{"nowhere", "/elsewhere", doc, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != tc.servedAt {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(strings.ReplaceAll(tc.body, "ISS", "http://"+r.Host+"/auth/v1")))
			}))
			defer srv.Close()
			meta, err := discoverIssuer(context.Background(), srv.Client(), srv.URL+"/auth/v1")
			if tc.wantErr {
				if err == nil {
					t.Fatalf("want an error, got %+v", meta)
				}
				if !strings.Contains(err.Error(), "/.well-known/openid-configuration/auth/v1") {
					t.Errorf("the error does not list the places tried: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if meta.TokenEndpoint != srv.URL+"/auth/v1/token" {
				t.Errorf("token_endpoint %q", meta.TokenEndpoint)
			}
		})
	}
}
