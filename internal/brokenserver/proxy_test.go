package brokenserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const stream = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}\n\n" +
	"event: message\ndata: {\"id\":1,\"jsonrpc\":\"2.0\",\"result\":{}}\n\n"

func upstream(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Echo-Accept", r.Header.Get("Accept"))
		io.WriteString(w, stream)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, h http.Handler) (*http.Response, string) {
	t.Helper()
	px := httptest.NewServer(h)
	defer px.Close()
	req, _ := http.NewRequest(http.MethodPost, px.URL+"/mcp", strings.NewReader(`{}`))
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestIdentityProxyIsTransparent(t *testing.T) {
	resp, body := get(t, Proxy(upstream(t).URL, Variant{}, Options{}))
	if d := cmp.Diff(stream, body); d != "" {
		t.Errorf("body changed (-want +got):\n%s", d)
	}
	if resp.Header.Get("X-Echo-Accept") != "application/json" {
		t.Errorf("request headers not forwarded: %v", resp.Header)
	}
}

func TestVariantsEditTheExchange(t *testing.T) {
	byName := map[string]Variant{}
	for _, v := range Variants() {
		if v.Name == "" || v.Defect == "" || len(v.MustFail) == 0 || (v.Request == nil && v.Response == nil) {
			t.Errorf("variant %q is incomplete", v.Name)
		}
		if _, dup := byName[v.Name]; dup {
			t.Errorf("variant %q listed twice", v.Name)
		}
		byName[v.Name] = v
	}
	_, body := get(t, Proxy(upstream(t).URL, byName["progress-after-final"], Options{}))
	if i, j := strings.Index(body, `"result"`), strings.Index(body, "notifications/progress"); i < 0 || j < i {
		t.Errorf("progress-after-final did not move progress after the result:\n%s", body)
	}
	resp, _ := get(t, Proxy(upstream(t).URL, byName["ignores-accept"], Options{}))
	if got := resp.Header.Get("X-Echo-Accept"); got != "application/json, text/event-stream" {
		t.Errorf("ignores-accept forwarded Accept %q", got)
	}
}

// accepts-query-token must hand the upstream what a server that reads the
// query would act on: the token in the header and no access_token left in
// the URL (the real server refuses any request that names one).
func TestAcceptsQueryTokenMovesTheTokenToTheHeader(t *testing.T) {
	var v Variant
	for _, x := range Variants() {
		if x.Name == "accepts-query-token" {
			v = x
		}
	}
	var gotQuery, gotAuth string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotQuery, gotAuth = r.URL.RawQuery, r.Header.Get("Authorization")
	}))
	defer up.Close()
	px := httptest.NewServer(Proxy(up.URL, v, Options{ValidToken: "good"}))
	defer px.Close()
	resp, err := http.Post(px.URL+"/mcp?access_token=good&keep=1", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if gotQuery != "keep=1" || gotAuth != "Bearer good" {
		t.Errorf("upstream saw query %q and Authorization %q, want keep=1 and Bearer good", gotQuery, gotAuth)
	}
}
