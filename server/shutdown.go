package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// Serve answers HTTP on ln until ctx is cancelled, then shuts down without
// dropping a call, in steps a load balancer can follow:
//
//  1. Drain: /readyz turns 503, and every reply carries Connection: close,
//     so each client's connection ends after its next answer (a client
//     that calls again dials afresh). The server keeps serving, new
//     connections included, for ShutdownDelay: long enough for a load
//     balancer's health checks to see the 503 and send no more.
//  2. Close: keep-alives end server-wide (a connection still idle after
//     the whole drain is closed), and the listener closes without
//     resetting what is in its queue ([queueListener]); later connections
//     are refused.
//  3. Finish: every open connection is answered once more at most, then
//     closes; Serve waits up to ShutdownTimeout for the last of them, and
//     closes any still open after that, so it never returns with a call
//     still writing.
//
// Two things net/http does are avoided on purpose. Keep-alives are not
// turned off at step 1: http.Server.SetKeepAlivesEnabled(false) closes
// every idle keep-alive connection at once, and a client may be sending
// its next request on one at that instant; that request is then reset
// unanswered. And http.Server.Shutdown is only called once no connection
// is left: it closes, unanswered, any connection whose request it reads
// after it has begun, which is a connection accepted just before the
// listener closed.
//
// Serve returns nil after a clean shutdown, and the deadline error when
// calls had to be cut off.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ql := &queueListener{Listener: ln}
	defer ql.closeNow()
	var open atomic.Int64 // connections accepted and not yet closed
	hs := &http.Server{
		Handler:           s.closeWhenDraining(s.handler),
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		MaxHeaderBytes:    s.opts.MaxHeaderBytes,
		IdleTimeout:       s.opts.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		ConnState: func(_ net.Conn, st http.ConnState) {
			switch st {
			case http.StateNew:
				open.Add(1)
			case http.StateClosed, http.StateHijacked:
				open.Add(-1)
			}
		},
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ql) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.draining.Store(true)
	if s.opts.ShutdownDelay > 0 {
		s.log.Info("draining: /readyz is 503 and replies close their connections; still serving",
			slog.Duration("delay", s.opts.ShutdownDelay))
		select {
		case err := <-errc:
			return err
		case <-time.After(s.opts.ShutdownDelay):
		}
	}
	s.log.Info("shutting down: waiting for calls in flight", slog.Duration("timeout", s.opts.ShutdownTimeout))
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.ShutdownTimeout)
	defer cancel()
	hs.SetKeepAlivesEnabled(false)
	ql.Close()
	if serr := <-errc; serr != nil && !errors.Is(serr, net.ErrClosed) && !errors.Is(serr, http.ErrServerClosed) {
		s.log.Warn("shutdown: the listener failed", slog.Any("error", serr))
	}
	// Every connection accepted is now tracked in open; each closes after
	// its next reply. net/http polls the same way in Shutdown.
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for open.Load() > 0 && sctx.Err() == nil {
		select {
		case <-sctx.Done():
		case <-tick.C:
		}
	}
	if err := sctx.Err(); err != nil {
		s.log.Warn("shutdown timed out: closing the connections of calls still in flight", slog.Any("error", err))
		hs.Close()
		return err
	}
	return hs.Shutdown(sctx) // nothing left to wait for; releases what net/http holds
}

// closeWhenDraining asks, once the drain has begun, that each connection
// close after its reply: net/http honours a handler's Connection: close
// and closes the connection once the reply is written. The header is
// decided when the reply starts, not when the request arrived, so a call
// that began before the drain and ends during it closes its connection
// too, rather than leaving it idle for the end of the drain to close under
// the client's next request.
func (s *Server) closeWhenDraining(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dw := &drainWriter{ResponseWriter: w, draining: &s.draining}
		next.ServeHTTP(dw, r)
		dw.started() // a handler that wrote nothing: net/http replies after this
	})
}

// drainWriter adds Connection: close to a reply that starts during the
// drain. It forwards Flush (SSE frames) and Unwrap (http.ResponseController).
type drainWriter struct {
	http.ResponseWriter
	draining *atomic.Bool
	begun    bool
}

func (w *drainWriter) started() {
	if !w.begun {
		w.begun = true
		if w.draining.Load() {
			w.Header().Set("Connection", "close")
		}
	}
}

func (w *drainWriter) WriteHeader(code int) {
	if code >= 200 { // 1xx replies are not the reply
		w.started()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *drainWriter) Write(b []byte) (int, error) {
	w.started()
	return w.ResponseWriter.Write(b)
}

func (w *drainWriter) Flush() {
	w.started()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *drainWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// queueGrace is how long a closing [queueListener] keeps accepting: enough
// to empty a listen queue that Serve fell behind on.
const queueGrace = 20 * time.Millisecond

// queueListener closes gracefully. Closing a listening socket makes the
// kernel reset every connection still in its listen queue: connections
// whose clients saw the handshake succeed and have sent a request that
// nobody will read. So Close first shrinks the listen queue to the least
// the kernel allows ([shrinkQueue]), so that it completes next to no new
// handshakes (a client's SYN goes unanswered, it retries, and is refused
// once the socket has closed), then sets a deadline queueGrace ahead; until
// then Accept hands out what is queued, and at the deadline the socket
// closes. A connection completed in the instant before the close can still
// be reset, which is one reason for the drain (ShutdownDelay): to let the
// load balancer stop sending before the listener closes.
type queueListener struct {
	net.Listener
	closing atomic.Bool
}

func (l *queueListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil && l.closing.Load() {
		l.Listener.Close()
		return nil, net.ErrClosed // not the deadline's timeout, which Serve would retry
	}
	return c, err
}

func (l *queueListener) Close() error {
	if l.closing.Swap(true) {
		return nil
	}
	shrinkQueue(l.Listener)
	if d, ok := l.Listener.(interface{ SetDeadline(time.Time) error }); ok && d.SetDeadline(time.Now().Add(queueGrace)) == nil {
		return nil // Accept closes the socket at the deadline
	}
	return l.Listener.Close()
}

// closeNow closes the socket in case nothing is left calling Accept.
func (l *queueListener) closeNow() { l.Listener.Close() }
