package devissuer_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"golang.org/x/oauth2"

	"github.com/tridenttaxis/trident-mcp/internal/devissuer"
)

// documentServer serves client ID metadata documents on loopback, as a
// client (or a test) hosts its own, and counts the fetches per path.
type documentServer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	fetches map[string]int
}

func newDocumentServer(t *testing.T, docs map[string]func(self string) (status int, contentType, body string)) *documentServer {
	t.Helper()
	d := &documentServer{fetches: map[string]int{}}
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.mu.Lock()
		d.fetches[r.URL.Path]++
		d.mu.Unlock()
		serve, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		status, ct, body := serve(d.srv.URL + r.URL.Path)
		if status/100 == 3 {
			http.Redirect(w, r, body, status)
			return
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(d.srv.Close)
	return d
}

func (d *documentServer) url(path string) string { return d.srv.URL + path }

func (d *documentServer) count(path string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.fetches[path]
}

// document is a client metadata document for the client at self.
func document(self string, change func(map[string]any)) string {
	doc := map[string]any{
		"client_id":                  self,
		"client_name":                "Document Client",
		"redirect_uris":              []string{redirect},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
	}
	if change != nil {
		change(doc)
	}
	b, _ := json.Marshal(doc)
	return string(b)
}

func ok(change func(map[string]any)) func(string) (int, string, string) {
	return func(self string) (int, string, string) { return 200, "application/json", document(self, change) }
}

// A client_id that is the URL of the client's metadata document is a
// public client with that document's redirect URIs: the code flow works
// with it, the document is fetched once for the whole flow, and the
// metadata says so.
func TestClientIDMetadataDocument(t *testing.T) {
	docs := newDocumentServer(t, map[string]func(string) (int, string, string){
		"/client.json": ok(nil),
	})
	h := newHarness(t, devissuer.Options{DevAutoApprove: true, DevClientMetadataLoopback: true})
	var meta map[string]any
	h.getJSON(h.issuer()+"/.well-known/oauth-authorization-server", &meta)
	if meta["client_id_metadata_document_supported"] != true {
		t.Errorf("metadata client_id_metadata_document_supported = %v, want true", meta["client_id_metadata_document_supported"])
	}
	id := docs.url("/client.json")
	cfg := h.oauthConfig(id, redirect)
	v := oauth2.GenerateVerifier()
	tok := h.exchange(cfg, h.autoCode(cfg, v), v)
	claims, _, err := h.verify(tok.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	if claims["client_id"] != id {
		t.Errorf("token client_id = %v, want the document URL %s", claims["client_id"], id)
	}
	if status, body := h.refresh(id, tok.RefreshToken); status != http.StatusOK {
		t.Errorf("refresh: %d %v", status, body)
	}
	if n := docs.count("/client.json"); n != 1 {
		t.Errorf("document fetched %d times, want once for the flow", n)
	}
}

// A document the issuer must not trust gets an error page, never a
// redirect with a code.
func TestClientIDMetadataDocumentRefusals(t *testing.T) {
	big := ok(func(d map[string]any) { d["client_name"] = strings.Repeat("x", 6<<10) })
	docs := newDocumentServer(t, map[string]func(string) (int, string, string){
		"/other-id.json":     ok(func(d map[string]any) { d["client_id"] = "https://elsewhere.example/client.json" }),
		"/secret.json":       ok(func(d map[string]any) { d["client_secret"] = "s3cret" }),
		"/basic.json":        ok(func(d map[string]any) { d["token_endpoint_auth_method"] = "client_secret_basic" }),
		"/no-redirects.json": ok(func(d map[string]any) { delete(d, "redirect_uris") }),
		"/other-redirect.json": ok(func(d map[string]any) {
			d["redirect_uris"] = []string{"http://127.0.0.1:47999/elsewhere"}
		}),
		"/html.json":  func(self string) (int, string, string) { return 200, "text/html", document(self, nil) },
		"/big.json":   big,
		"/moved.json": func(string) (int, string, string) { return http.StatusFound, "", "/client.json" },
		"/gone.json":  func(string) (int, string, string) { return 404, "text/plain", "gone" },
	})
	h := newHarness(t, devissuer.Options{DevAutoApprove: true, DevClientMetadataLoopback: true})
	for path, why := range map[string]string{
		"/other-id.json":       "is not its URL",
		"/secret.json":         "client_secret",
		"/basic.json":          "client_secret_basic",
		"/no-redirects.json":   "redirect_uris is required",
		"/other-redirect.json": "redirect_uri",
		"/html.json":           "not JSON",
		"/big.json":            "larger than 5120 bytes",
		"/moved.json":          "HTTP 302",
		"/gone.json":           "HTTP 404",
		"/client.json#frag":    "fragment",
		"/a/../client.json":    "dot segments",
	} {
		t.Run(path, func(t *testing.T) {
			refused(t, h, docs.url(path), why)
		})
	}
	if n := docs.count("/client.json"); n != 0 {
		t.Errorf("a redirect was followed, or a bad URL fetched (%d fetches of /client.json)", n)
	}

	// Without the dev option, a document on loopback is not even fetched.
	strict := newHarness(t, devissuer.Options{DevAutoApprove: true})
	good := newDocumentServer(t, map[string]func(string) (int, string, string){"/client.json": ok(nil)})
	refused(t, strict, good.url("/client.json"), "must be served over https")
	refused(t, strict, strings.Replace(good.url("/client.json"), "http://", "https://", 1), "accepted in dev mode only")
	if n := good.count("/client.json"); n != 0 {
		t.Errorf("the strict issuer fetched a loopback document %d times", n)
	}
}

// refused asserts that an authorize request naming client id gets no
// redirect back to the client.
func refused(t *testing.T, h *harness, id, why string) {
	t.Helper()
	cfg := h.oauthConfig(id, redirect)
	u := cfg.AuthCodeURL("state-document-1", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()),
		oauth2.SetAuthURLParam("resource", testResource), oauth2.SetAuthURLParam("dev_auto_approve", devissuer.DefaultUser.Email))
	resp, err := h.http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 == 3 {
		loc, _ := url.Parse(resp.Header.Get("Location"))
		t.Errorf("client_id %s: redirected to %s, want an error page", id, loc)
	}
	if !strings.Contains(string(body), why) {
		t.Errorf("client_id %s: error page %s does not say %q", id, body, why)
	}
}
