package fakegeo

import (
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Fault is what the engine does wrong, for every request until changed.
type Fault string

// The faults. Each one is what a real engine, or the proxy in front of it,
// has been seen to do.
const (
	// Healthy answers as the engine does.
	Healthy Fault = ""
	// Slow holds every reply until the client gives up (or
	// [Server.SetSlowFor]'s time passes, then answers healthily): a back end
	// slower than GEO_TIMEOUT.
	Slow Fault = "slow"
	// Trickle sends the status and headers at once, then the body one byte
	// every 50 ms: a reply that starts in time and never finishes.
	Trickle Fault = "trickle"
	// TooManyRequests answers 429 with Retry-After ([Server.SetRetryAfter],
	// default "2" seconds), as Nominatim does to a client over its limit.
	TooManyRequests Fault = "429"
	// ServerError answers 500 with the engine's error JSON.
	ServerError Fault = "500"
	// Unavailable answers 503 with nginx's HTML page, as a proxy in front of
	// an overloaded or restarting engine does.
	Unavailable Fault = "503"
	// Reset closes the connection with a TCP reset before any reply.
	Reset Fault = "reset"
	// Truncated sends a 200 whose Content-Length promises the whole healthy
	// body and then closes the connection halfway through it.
	Truncated Fault = "truncated"
	// Malformed answers 200 application/json with a body that is not JSON.
	Malformed Fault = "malformed"
	// Empty answers a well-formed empty result: Nominatim's [] (the address
	// is unknown), OSRM's "Ok" with no routes.
	Empty Fault = "empty"
	// Huge answers 200 with 2 MiB of JSON, over any sane reply's size.
	Huge Fault = "huge"
	// DeepNesting answers 200 with JSON nested 100,000 deep.
	DeepNesting Fault = "deep-nesting"
	// BadCoordinates answers 200 with well-formed JSON whose numbers are
	// impossible: a latitude of 91.5, a route 10^12 m long.
	BadCoordinates Fault = "bad-coordinates"
	// HugeHeaders answers 200 with 128 KiB of response headers before the
	// healthy body.
	HugeHeaders Fault = "huge-headers"
)

// Faults lists every fault but [Healthy], for table tests.
var Faults = []Fault{Slow, Trickle, TooManyRequests, ServerError, Unavailable, Reset, Truncated, Malformed, Empty, Huge, DeepNesting, BadCoordinates, HugeHeaders}

// engine answers one healthy request: status and JSON body.
type engine interface {
	answer(r *http.Request) (status int, body []byte)
	empty() []byte
	impossible(r *http.Request) []byte
	errorBody(status int, msg string) []byte
}

// Server is one fake engine on a loopback port.
type Server struct {
	// URL is the base URL to configure (NOMINATIM_URL, OSRM_URL).
	URL string

	eng    engine
	ts     *httptest.Server
	closed chan struct{}
	once   sync.Once

	fault      atomic.Pointer[Fault]
	slowFor    atomic.Int64 // time.Duration
	retryAfter atomic.Pointer[string]
	requests   atomic.Int64

	mu         sync.Mutex
	userAgents map[string]int
}

func newServer(e engine) *Server {
	s := &Server{eng: e, closed: make(chan struct{}), userAgents: map[string]int{}}
	s.SetFault(Healthy)
	s.SetSlowFor(time.Minute)
	s.SetRetryAfter("2")
	s.ts = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.ts.URL
	return s
}

// SetFault switches every following request to f ([Healthy] to heal).
// Requests already being answered keep the fault they started with.
func (s *Server) SetFault(f Fault) { s.fault.Store(&f) }

// SetSlowFor bounds how long [Slow] holds a reply when the client does not
// give up first (default one minute); then the reply is a healthy one.
func (s *Server) SetSlowFor(d time.Duration) { s.slowFor.Store(int64(d)) }

// SetRetryAfter sets the Retry-After header value that [TooManyRequests]
// sends: seconds ("2") or an HTTP date; "" sends none.
func (s *Server) SetRetryAfter(v string) { s.retryAfter.Store(&v) }

// Requests is how many requests reached the engine so far, whatever it
// answered.
func (s *Server) Requests() int64 { return s.requests.Load() }

// UserAgents counts the requests by User-Agent header.
func (s *Server) UserAgents() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.userAgents)
}

// CloseClientConnections cuts every open connection, as an engine restart
// does; clients redial.
func (s *Server) CloseClientConnections() { s.ts.CloseClientConnections() }

// Close cuts every connection, ends held replies and stops the server.
func (s *Server) Close() {
	s.once.Do(func() { close(s.closed) })
	s.ts.CloseClientConnections()
	s.ts.Close()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	s.mu.Lock()
	s.userAgents[r.Header.Get("User-Agent")]++
	s.mu.Unlock()

	switch f := *s.fault.Load(); f {
	case Healthy:
		s.writeJSON(w, r)
	case Slow:
		t := time.NewTimer(time.Duration(s.slowFor.Load()))
		defer t.Stop()
		select {
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		case <-t.C:
		}
		s.writeJSON(w, r)
	case Trickle:
		_, body := s.eng.answer(r)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for _, b := range body {
			if _, err := w.Write([]byte{b}); err != nil {
				return
			}
			_ = rc.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-s.closed:
				return
			case <-tick.C:
			}
		}
	case TooManyRequests:
		if v := *s.retryAfter.Load(); v != "" {
			w.Header().Set("Retry-After", v)
		}
		write(w, http.StatusTooManyRequests, "application/json; charset=utf-8", s.eng.errorBody(429, "Too Many Requests"))
	case ServerError:
		write(w, http.StatusInternalServerError, "application/json; charset=utf-8", s.eng.errorBody(500, "Internal Server Error"))
	case Unavailable:
		write(w, http.StatusServiceUnavailable, "text/html", []byte(nginx503))
	case Reset:
		conn := hijack(w)
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // close sends RST, not FIN
		}
		conn.Close()
	case Truncated:
		_, body := s.eng.answer(r)
		conn := hijack(w)
		fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\n\r\n", len(body))
		_, _ = conn.Write(body[:len(body)/2])
		conn.Close()
	case Malformed:
		write(w, http.StatusOK, "application/json; charset=utf-8", []byte(`[{"place_id":1,"lat":"55.9","lon":},{"code":"Ok",`))
	case Empty:
		write(w, http.StatusOK, "application/json; charset=utf-8", s.eng.empty())
	case Huge:
		write(w, http.StatusOK, "application/json; charset=utf-8", hugeBody())
	case DeepNesting:
		write(w, http.StatusOK, "application/json; charset=utf-8", deepBody())
	case BadCoordinates:
		write(w, http.StatusOK, "application/json; charset=utf-8", s.eng.impossible(r))
	case HugeHeaders:
		for i := range 128 {
			w.Header().Set(fmt.Sprintf("X-Padding-%d", i), strings.Repeat("x", 1020))
		}
		s.writeJSON(w, r)
	default:
		panic("fakegeo: unknown fault " + string(f))
	}
}

// hugeBody is 2 MiB of well-formed Nominatim-like JSON, built once.
var hugeBody = sync.OnceValue(func() []byte {
	var b strings.Builder
	b.WriteString(`[`)
	for b.Len() < 2<<20 {
		b.WriteString(`{"place_id":1,"licence":"Data © OpenStreetMap contributors","lat":"55.9","lon":"-4.5"},`)
	}
	b.WriteString(`{}]`)
	return []byte(b.String())
})

// deepBody is JSON arrays nested 100,000 deep, built once.
var deepBody = sync.OnceValue(func() []byte {
	const depth = 100_000
	return []byte(strings.Repeat("[", depth) + strings.Repeat("]", depth))
})

func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request) {
	status, body := s.eng.answer(r)
	write(w, status, "application/json; charset=utf-8", body)
}

func write(w http.ResponseWriter, status int, ctype string, body []byte) {
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// hijack takes the raw connection, for replies no ResponseWriter can send.
func hijack(w http.ResponseWriter) net.Conn {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // the server closes the connection
	}
	return conn
}

// nginx503 is the page nginx serves when its upstream is overloaded.
const nginx503 = `<html>
<head><title>503 Service Temporarily Unavailable</title></head>
<body>
<center><h1>503 Service Temporarily Unavailable</h1></center>
<hr><center>nginx</center>
</body>
</html>
`
