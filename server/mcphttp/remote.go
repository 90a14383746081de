package mcphttp

import (
	"context"
	"net"
	"net/http"
)

// withRemoteHost records the request's remote host in the call's
// [CallInfo], where a tool handler finds it with [RemoteHost]: the SDK
// hands handlers the request's context but not the request. The host
// attaches a CallInfo to every request, so this costs no context and no
// copy of the request of its own; a front door mounted without one (or
// inside another call that has its host already) gets a CallInfo here.
func withRemoteHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		c, ok := r.Context().Value(callInfoKey{}).(*CallInfo)
		if !ok || c.remoteHost != "" {
			c = &CallInfo{}
			r = r.WithContext(WithCallInfo(r.Context(), c))
		}
		c.remoteHost = host
		next.ServeHTTP(w, r)
	})
}

// RemoteHost is the address of the peer that sent the call (never a
// client-supplied X-Forwarded-For), for limits keyed by caller in public
// mode; "" outside an HTTP call.
func RemoteHost(ctx context.Context) string {
	if c, ok := ctx.Value(callInfoKey{}).(*CallInfo); ok {
		return c.remoteHost
	}
	return ""
}
