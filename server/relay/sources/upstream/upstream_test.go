package upstream_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/server/relay/sources/upstream"
)

var now = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func TestParseRetryAfter(t *testing.T) {
	for value, want := range map[string]time.Duration{
		"":                                0,
		"0":                               0,
		"30":                              30 * time.Second,
		"120":                             2 * time.Minute,
		"-5":                              0,
		"1.5":                             0,
		"soon":                            0,
		"99999999999999999999":            24 * time.Hour,
		"86401":                           24 * time.Hour,
		"Tue, 01 Dec 2026 09:01:30 GMT":   90 * time.Second,
		"Tue, 01 Dec 2026 08:59:00 GMT":   0,                // in the past
		"Tuesday, 01-Dec-26 09:00:10 GMT": 10 * time.Second, // RFC 850, still valid
		"Wed, 09 Dec 2026 09:00:00 GMT":   24 * time.Hour,
	} {
		if got := upstream.ParseRetryAfter(value, now); got != want {
			t.Errorf("ParseRetryAfter(%q) = %v; want %v", value, got, want)
		}
	}
}

func TestFromStatus(t *testing.T) {
	tests := []struct {
		status     int
		retryAfter string
		code       string
		kind       upstream.Kind
		wantCode   string
		wantRetry  time.Duration
		msg        string
	}{
		{401, "", "unauthorized", upstream.Unauthorized, "unauthorized", 0, "uber: unauthorized: HTTP 401 (unauthorized)"},
		{403, "", "", upstream.Unauthorized, "", 0, "uber: unauthorized: HTTP 403"},
		{429, "30", "", upstream.RateLimited, "", 30 * time.Second, "uber: rate_limited: HTTP 429, retry after 30s"},
		{429, "", "rate_limited", upstream.RateLimited, "rate_limited", 0, "uber: rate_limited: HTTP 429 (rate_limited)"},
		{500, "", "", upstream.Unavailable, "", 0, "uber: unavailable: HTTP 500"},
		{503, "10", "", upstream.Unavailable, "", 10 * time.Second, "uber: unavailable: HTTP 503, retry after 10s"},
		{422, "", "distance_exceeded", upstream.Rejected, "distance_exceeded", 0, "uber: rejected: HTTP 422 (distance_exceeded)"},
		// A code that is not a short token is dropped: it could be anything.
		{401, "", "Bearer sk-secret-token", upstream.Unauthorized, "", 0, "uber: unauthorized: HTTP 401"},
		{400, "", strings.Repeat("a", 65), upstream.Rejected, "", 0, "uber: rejected: HTTP 400"},
		{302, "", "", upstream.Malformed, "", 0, "uber: malformed: HTTP 302: unexpected HTTP status"},
	}
	for _, tt := range tests {
		e := upstream.FromStatus("uber", tt.status, tt.retryAfter, tt.code, now)
		if e.Kind != tt.kind || e.Code != tt.wantCode || e.RetryAfter != tt.wantRetry || e.Status != tt.status || e.Error() != tt.msg {
			t.Errorf("FromStatus(%d, %q, %q) = %+v %q; want kind %s code %q retry %v msg %q",
				tt.status, tt.retryAfter, tt.code, e, e.Error(), tt.kind, tt.wantCode, tt.wantRetry, tt.msg)
		}
	}
}

func TestAccessorsThroughWrapping(t *testing.T) {
	err := fmt.Errorf("search: %w", upstream.FromStatus("lyft", 429, "7", "", now))
	if upstream.KindOf(err) != upstream.RateLimited || upstream.RetryAfterOf(err) != 7*time.Second || upstream.StatusOf(err) != 429 {
		t.Fatalf("accessors: %s %v %d", upstream.KindOf(err), upstream.RetryAfterOf(err), upstream.StatusOf(err))
	}
	if !errors.Is(err, &upstream.Error{Kind: upstream.RateLimited}) || errors.Is(err, &upstream.Error{Kind: upstream.Timeout}) {
		t.Fatal("errors.Is must compare kinds")
	}
	plain := errors.New("other")
	if upstream.KindOf(plain) != "" || upstream.RetryAfterOf(plain) != 0 || upstream.StatusOf(plain) != 0 {
		t.Fatal("accessors on a foreign error must be zero")
	}
}

func TestFromTransport(t *testing.T) {
	expired, cancel := context.WithDeadline(context.Background(), now)
	defer cancel()
	canceled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	tests := []struct {
		ctx    context.Context
		err    error
		kind   upstream.Kind
		unwrap error
	}{
		{expired, context.DeadlineExceeded, upstream.Timeout, context.DeadlineExceeded},
		{context.Background(), fmt.Errorf("Get %q: %w", "https://api.uber.com/?start_latitude=40.64", context.DeadlineExceeded), upstream.Timeout, context.DeadlineExceeded},
		{canceled, context.Canceled, upstream.Canceled, context.Canceled},
		{context.Background(), errors.New(`Get "https://api.uber.com/v1.2/estimates/price?start_latitude=40.64": dial tcp: connection refused`), upstream.Unavailable, nil},
	}
	for _, tt := range tests {
		e := upstream.FromTransport(tt.ctx, "uber", tt.err)
		if e.Kind != tt.kind || !errors.Is(e, tt.unwrap) && tt.unwrap != nil || (tt.unwrap == nil && e.Unwrap() != nil) {
			t.Errorf("FromTransport(%v) = %+v", tt.err, e)
		}
		if strings.Contains(e.Error(), "40.64") || strings.Contains(e.Error(), "http") {
			t.Errorf("message leaks the URL: %q", e.Error())
		}
	}
}

func TestFetch(t *testing.T) {
	const secret = "sk-live-0123456789"
	tests := []struct {
		name    string
		handler http.HandlerFunc
		kind    upstream.Kind
		body    string
	}{
		{"json", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			fmt.Fprint(w, `{"ok":true}`)
		}, "", `{"ok":true}`},
		{"not json", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>"+secret+"</html>")
		}, upstream.Malformed, ""},
		{"no content type", func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = nil
			fmt.Fprint(w, `{}`)
		}, upstream.Malformed, ""},
		{"truncated", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "100")
			fmt.Fprint(w, `{"prices": [`)
		}, upstream.Malformed, ""},
		{"too large", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `"`+strings.Repeat("x", upstream.MaxBody)+`"`)
		}, upstream.Malformed, ""},
		{"401 body echoes the token", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"code": "unauthorized", "message": "token %s is invalid"}`, secret)
		}, upstream.Unauthorized, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			req, _ := http.NewRequest("GET", srv.URL+"/?start_latitude=40.64", nil)
			req.Header.Set("Authorization", "Bearer "+secret)
			body, err := upstream.Fetch(srv.Client(), req, "uber", func() time.Time { return now })
			if upstream.KindOf(err) != tt.kind || string(body) != tt.body {
				t.Fatalf("Fetch = %q, %v; want kind %q body %q", body, err, tt.kind, tt.body)
			}
			if err != nil && (strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "40.64")) {
				t.Fatalf("message leaks: %q", err)
			}
		})
	}
}

func TestDecodeJSON(t *testing.T) {
	var v map[string]any
	for body, ok := range map[string]bool{`{"a":1}`: true, `{"a":1} `: true, `{"a":`: false, `{"a":1}{}`: false, ``: false, `nope`: false} {
		err := upstream.DecodeJSON("lyft", 200, []byte(body), &v)
		if (err == nil) != ok || (err != nil && upstream.KindOf(err) != upstream.Malformed) {
			t.Errorf("DecodeJSON(%q) = %v", body, err)
		}
	}
}

func TestMetersFromMiles(t *testing.T) {
	for miles, want := range map[string]int64{
		"0": 0, "1": 1609, "5.72": 9205, "3.29": 5295, "0.0003107": 1 /* 0.50002 m */, "0.0003": 0 /* 0.48 m */, "26.2188": 42195,
		"1e2": 160934, "9999999": 16093438391,
	} {
		got, err := upstream.MetersFromMiles(miles)
		if err != nil || got != want {
			t.Errorf("MetersFromMiles(%q) = %d, %v; want %d", miles, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1", "NaN", "Infinity", "1e7", "1e999999", "x"} {
		if _, err := upstream.MetersFromMiles(bad); err == nil {
			t.Errorf("MetersFromMiles(%q) accepted", bad)
		}
	}
}

func TestWholeNumber(t *testing.T) {
	for text, want := range map[string]int64{"0": 0, "913": 913, "913.0": 913, "1e3": 1000} {
		if got, err := upstream.WholeNumber(text); err != nil || got != want {
			t.Errorf("WholeNumber(%q) = %d, %v", text, got, err)
		}
	}
	for _, bad := range []string{"", "1.5", "-1", "NaN", "1e18", "x"} {
		if _, err := upstream.WholeNumber(bad); err == nil {
			t.Errorf("WholeNumber(%q) accepted", bad)
		}
	}
}

func TestBasisOf(t *testing.T) {
	p := func(n int64) *int64 { return &n }
	tests := []struct {
		low, high *int64
		basis     upstream.Basis
		max       *int64
	}{
		{nil, nil, upstream.BasisMetered, nil},
		{nil, p(5), upstream.BasisMetered, nil},
		{p(2100), p(2600), upstream.BasisEstimateRange, p(2600)},
		{p(2100), p(2100), upstream.BasisFixed, nil},
		{p(2100), nil, upstream.BasisFixed, nil},
	}
	for _, tt := range tests {
		b, max := upstream.BasisOf(tt.low, tt.high)
		if b != tt.basis || (max == nil) != (tt.max == nil) || (max != nil && *max != *tt.max) {
			t.Errorf("BasisOf(%v, %v) = %s, %v", tt.low, tt.high, b, max)
		}
	}
}

func FuzzMetersFromMiles(f *testing.F) {
	for _, s := range []string{"5.72", "0", "1e2", "-1", "NaN", "9999999.99", "0.0003107"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := upstream.MetersFromMiles(s)
		if err == nil && (m < 0 || m > 16093440000) {
			t.Fatalf("MetersFromMiles(%q) = %d", s, m)
		}
		n, err := upstream.WholeNumber(s)
		if err == nil && n < 0 {
			t.Fatalf("WholeNumber(%q) = %d", s, n)
		}
	})
}
