package fakeproviders

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"testing"
)

// Knob is how a fake answers its next requests, until set again.
type Knob int

const (
	// Normal answers 200 with the configured prices.
	Normal Knob = iota
	// Unauthorized answers 401 with the provider's error body.
	Unauthorized
	// Forbidden answers 403 with the provider's error body.
	Forbidden
	// RateLimited answers 429, with the Retry-After set by SetRetryAfter
	// and none when that is "".
	RateLimited
	// ServerError answers 500.
	ServerError
	// Unavailable answers 503 with an HTML page, and the Retry-After set by
	// SetRetryAfter.
	Unavailable
	// Slow answers nothing until the request is abandoned (the caller's
	// timeout) or the fake closes.
	Slow
	// MalformedJSON answers 200, application/json, with a body that is not
	// JSON.
	MalformedJSON
	// TruncatedBody answers 200 and cuts the body short of its
	// Content-Length.
	TruncatedBody
	// WrongContentType answers 200 with an HTML page.
	WrongContentType
	// EmptyObject answers 200, application/json, {}: valid JSON without
	// the fields the API always sends.
	EmptyObject
)

// Recorded is what one request carried.
type Recorded struct {
	Method, Path   string
	Query          url.Values
	Authorization  string
	AcceptLanguage string
	// Form is the parsed body of a token request, nil otherwise.
	Form url.Values
}

// base is the state and the failure answers both fakes share.
type base struct {
	URL     string
	closing chan struct{}

	mu         sync.Mutex
	knob       Knob
	queue      []Knob
	retryAfter string
	calls      []Recorded
}

func (b *base) start(tb testing.TB, h http.Handler) {
	tb.Helper()
	b.closing = make(chan struct{})
	srv := httptest.NewServer(h)
	b.URL = srv.URL
	tb.Cleanup(func() {
		close(b.closing) // release Slow handlers, or Close would wait on them
		srv.Close()
	})
}

// Set makes the fake answer with k from now on.
func (b *base) Set(k Knob) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.knob = k
}

// Queue makes the next len(k) requests answer with k, one each, in order,
// before the knob given to Set applies again.
func (b *base) Queue(k ...Knob) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.queue = append(b.queue, k...)
}

// next takes the knob for one request: the head of queue, or knob.
func next(queue *[]Knob, knob Knob) Knob {
	if len(*queue) == 0 {
		return knob
	}
	k := (*queue)[0]
	*queue = (*queue)[1:]
	return k
}

// SetRetryAfter sets the Retry-After header of a [RateLimited] answer
// ("30", or an HTTP-date); "" sends none.
func (b *base) SetRetryAfter(v string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.retryAfter = v
}

// record keeps what r carried; form is a token request's parsed body.
func (b *base) record(r *http.Request, form url.Values) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls = append(b.calls, Recorded{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(),
		Authorization: r.Header.Get("Authorization"), AcceptLanguage: r.Header.Get("Accept-Language"),
		Form: form,
	})
}

// take returns the knob and Retry-After for one request to the main
// endpoint.
func (b *base) take() (Knob, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return next(&b.queue, b.knob), b.retryAfter
}

func (b *base) recorded(path string) []Recorded {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Recorded
	for _, c := range b.calls {
		if path == "" || c.Path == path {
			out = append(out, c)
		}
	}
	return out
}

// fail answers a failure knob in the provider's error format (errBody
// builds its JSON body) and reports whether it did; Normal is left to the
// caller.
func (b *base) fail(w http.ResponseWriter, r *http.Request, k Knob, retryAfter string, errBody func(code, message string) any) bool {
	switch k {
	case Unauthorized:
		writeJSON(w, http.StatusUnauthorized, errBody("unauthorized", "Invalid OAuth 2.0 credentials provided."))
	case Forbidden:
		writeJSON(w, http.StatusForbidden, errBody("forbidden", "Forbidden."))
	case RateLimited:
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		writeJSON(w, http.StatusTooManyRequests, errBody("rate_limited", "Too many requests."))
	case ServerError:
		writeJSON(w, http.StatusInternalServerError, errBody("internal_server_error", "Internal server error."))
	case Unavailable:
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, "<html><body>503 Service Temporarily Unavailable</body></html>")
	case Slow:
		select {
		case <-r.Context().Done():
		case <-b.closing:
		}
	case MalformedJSON:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"prices": [{"product_id": "a1", "low_estimate": 21,,]}`)
	case TruncatedBody:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "4096")
		fmt.Fprint(w, `{"prices": [{"product_id": "a1", "display_name": "Uber`)
	case EmptyObject:
		writeJSON(w, http.StatusOK, struct{}{})
	case WrongContentType:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>Sign in</title>")
	default:
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// only is the entries of in whose key is want, or all of in when want is
// empty; never nil, so that an answer's list encodes as [] as the real APIs
// send it.
func only[E any](in []E, want string, key func(E) string) []E {
	out := []E{}
	for _, e := range in {
		if want == "" || key(e) == want {
			out = append(out, e)
		}
	}
	return out
}
