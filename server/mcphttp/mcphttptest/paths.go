package mcphttptest

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/server/mcphttp"
)

// Paths is one endpoint's front door built twice from the same
// configuration: with the fast path
// ([github.com/tridenttaxis/trident-mcp/server/fastcall]) and with every
// call through the go-sdk ([mcphttp.Config.DisableFastPath], the
// reference). The two must answer every request with the same bytes.
type Paths struct {
	fast, ref http.Handler
}

// NewPaths builds ep's front door both ways from cfg.
func NewPaths(t testing.TB, ep *mcphttp.Endpoint, cfg mcphttp.Config) *Paths {
	t.Helper()
	fastCfg, refCfg := cfg, cfg
	fastCfg.DisableFastPath, refCfg.DisableFastPath = false, true
	fast, err := mcphttp.New(ep, fastCfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := mcphttp.New(ep, refCfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Paths{fast: fast, ref: ref}
}

// Exchange is what a client sees of one reply.
type Exchange struct {
	Status int
	Header http.Header
	Body   string
}

// Send serves one POST of body with header through h, in process, and
// reports what the front door learnt of it (whether the fast path
// answered, whether it streamed).
func Send(h http.Handler, header http.Header, body string) (Exchange, mcphttp.CallInfo) {
	var info mcphttp.CallInfo
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header = header.Clone()
	req = req.WithContext(mcphttp.WithCallInfo(req.Context(), &info))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return Exchange{Status: rec.Code, Header: rec.Header(), Body: rec.Body.String()}, info
}

// Compare sends body with header to both front doors, fails t when the
// answers differ (status, headers or body, byte for byte), and reports
// whether the fast path answered.
func (p *Paths) Compare(t testing.TB, header http.Header, body string) (fast bool) {
	t.Helper()
	got, info := Send(p.fast, header, body)
	want, _ := Send(p.ref, header, body)
	if n := got.Header.Get("Content-Length"); n != "" && info.Fast && want.Header.Get("Content-Length") == "" {
		// The fast path states a long reply's length, which net/http
		// sends in chunks for the go-sdk: the same reply but for its
		// framing, which a recorder does not show. The length must be
		// the body's.
		if n != strconv.Itoa(len(got.Body)) {
			t.Errorf("fast path states Content-Length %s for a body of %d bytes", n, len(got.Body))
		}
		got.Header = got.Header.Clone()
		got.Header.Del("Content-Length")
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("fast path (taken: %v) differs from the go-sdk for %s (-sdk +fast):\n%s", info.Fast, body, d)
	}
	return info.Fast
}
