package geo

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fixture is a recorded reply of a real engine, replayed by a test server.
type fixture struct {
	status int
	file   string // under testdata/; "" for an empty body
	ctype  string
}

func (f fixture) serve(t *testing.T, w http.ResponseWriter) {
	t.Helper()
	var body []byte
	if f.file != "" {
		b, err := os.ReadFile(filepath.Join("testdata", f.file))
		if err != nil {
			t.Errorf("fixture: %v", err)
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		body = b
	}
	ct := f.ctype
	if ct == "" {
		ct = "application/json; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(f.status)
	_, _ = w.Write(body)
}

// blockingServer answers nothing until the request's context ends, as a hung
// back end does; the client's timeout is what must end the exchange.
func blockingServer(t *testing.T) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(ts.Close)
	return ts
}

// closedServerURL is the URL of a server that is no longer listening.
func closedServerURL(t *testing.T) string {
	t.Helper()
	ts := httptest.NewServer(http.NotFoundHandler())
	u := ts.URL
	ts.Close()
	return u
}

func TestBackendErrorUnwrap(t *testing.T) {
	cause := context.DeadlineExceeded
	err := error(&BackendError{Backend: "osrm", Message: "request timed out", Err: cause, class: ErrUnavailable})
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrNoMatch) {
		t.Errorf("errors.Is on %v: want ErrUnavailable and DeadlineExceeded only", err)
	}
	var be *BackendError
	if !errors.As(err, &be) || be.Backend != "osrm" {
		t.Errorf("errors.As: got %+v", be)
	}
	if got, want := err.Error(), "geo: osrm: request timed out: context deadline exceeded"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestWithTimeoutKeepsDefaultForNonPositive(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		if got := newHTTPConfig([]Option{WithTimeout(d)}).timeout; got != DefaultTimeout {
			t.Errorf("WithTimeout(%v): timeout %v, want %v", d, got, DefaultTimeout)
		}
	}
	if got := newHTTPConfig([]Option{WithTimeout(time.Second)}).timeout; got != time.Second {
		t.Errorf("WithTimeout(1s): timeout %v", got)
	}
}
