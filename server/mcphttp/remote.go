package mcphttp

import (
	"context"
	"net"
	"net/http"
)

type remoteHostKey struct{}

// withRemoteHost puts the request's remote host in its context (in the
// host's CallInfo when it has one), where a tool handler finds it with
// [RemoteHost]: the SDK hands handlers the request's context but not the
// request.
func withRemoteHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		if c, ok := r.Context().Value(callInfoKey{}).(*CallInfo); ok && c.remoteHost == "" {
			// Kept in the host's record of the call: no context and no
			// copy of the request of its own on every call.
			c.remoteHost = host
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), remoteHostKey{}, host)))
	})
}

// RemoteHost is the address of the peer that sent the call (never a
// client-supplied X-Forwarded-For), for limits keyed by caller in public
// mode; "" outside an HTTP call.
func RemoteHost(ctx context.Context) string {
	if h, ok := ctx.Value(remoteHostKey{}).(string); ok {
		return h
	}
	if c, ok := ctx.Value(callInfoKey{}).(*CallInfo); ok {
		return c.remoteHost
	}
	return ""
}
