package client

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// InProcess returns an [http.RoundTripper] that serves every request with h
// in this process, for a client whose server is mounted in the same binary
// (Relay pricing with the host's own Trident /mcp). The request still goes
// through h whole: the same front door, headers, status codes and bodies as
// over a socket, so the client speaks the server's contract as it would
// remotely; what goes is the loopback TCP round trip, the kernel's copies
// and the connection pool. Give it with [WithHTTPClient]:
//
//	client.WithHTTPClient(&http.Client{Transport: client.InProcess(host.Handler())})
//
// The reply is buffered until h returns, which suits MCP's request-response
// exchanges (a stateless tools/call answers as JSON or as one SSE event, and
// the handler returns after it); it does not suit a stream a handler keeps
// open until the client hangs up, which this client's stateless calls never
// ask for. The request's context is the handler's, so a caller's deadline or
// cancellation reaches the server as a closed connection would. Hand-written
// rather than net/http/httptest's ResponseRecorder, which documents itself
// as a test aid and copies headers on every write.
func InProcess(h http.Handler) http.RoundTripper { return inProcess{h} }

type inProcess struct{ h http.Handler }

// inProcessRemoteAddr is the peer address the server sees: loopback, as a
// call to the host's own listener would show.
const inProcessRemoteAddr = "127.0.0.1:0"

func (t inProcess) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	// A RoundTripper must not modify the request: the server gets a
	// shallow copy shaped as net/http's server would hand it over.
	r := req.Clone(req.Context())
	r.RequestURI = req.URL.RequestURI()
	r.RemoteAddr = inProcessRemoteAddr
	r.Host = req.Host
	if r.Host == "" {
		r.Host = req.URL.Host
	}
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	r.URL.Scheme, r.URL.Host = "", "" // a server's r.URL is the request URI
	if r.Body == nil {
		r.Body = http.NoBody
	}
	if r.ContentLength == 0 && r.Body != http.NoBody && req.GetBody == nil {
		r.ContentLength = -1
	}
	w := &bufferedResponse{header: http.Header{}}
	defer func() {
		// net/http's server survives a panicking handler by dropping the
		// connection; the caller sees a transport error, and so here.
		if p := recover(); p != nil {
			resp, err = nil, fmt.Errorf("client: in-process handler for %s panicked: %v", req.URL.Path, p)
		}
	}()
	t.h.ServeHTTP(w, r)
	if req.Body != nil {
		req.Body.Close() // a RoundTripper closes the body, also when unread
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	body := w.body.Bytes()
	status := "200 OK" // nearly every reply: spares building the text each time
	if w.status != http.StatusOK {
		status = strconv.Itoa(w.status) + " " + http.StatusText(w.status)
	}
	return &http.Response{
		Status:        status,
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header,
		Body:          w.reply(body),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

// bufferedResponse is the handler's [http.ResponseWriter]: the status, the
// headers as they were when the status was written, and the body.
type bufferedResponse struct {
	header http.Header
	sent   http.Header // the header at WriteHeader; later changes are not sent
	status int
	body   bytes.Buffer
	read   replyBody
}

// replyBody is the response's Body: the buffered bytes, and a Close that
// does nothing, as io.NopCloser's.
type replyBody struct{ bytes.Reader }

func (*replyBody) Close() error { return nil }

// reply returns the response's Body reading b, kept in w so that it costs
// no allocation of its own (io.NopCloser(bytes.NewReader(b)) cost two).
func (w *bufferedResponse) reply(b []byte) io.ReadCloser {
	w.read.Reset(b)
	return &w.read
}

func (w *bufferedResponse) Header() http.Header {
	if w.sent != nil {
		return w.sent.Clone() // writes after the status change nothing, as on a socket
	}
	return w.header
}

func (w *bufferedResponse) WriteHeader(code int) {
	if w.status != 0 || code < 200 { // informational replies are not the answer
		return
	}
	w.status, w.sent = code, w.header
}

func (w *bufferedResponse) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.body.Write(p)
}

// Flush lets a handler that flushes (an SSE reply) run unchanged; the
// bytes are delivered when it returns.
func (w *bufferedResponse) Flush() {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
}
