package mcphttp

import (
	"context"
	"net"
	"net/http"
)

type remoteHostKey struct{}

// withRemoteHost puts the request's remote host in its context, where a
// tool handler finds it with [RemoteHost]: the SDK hands handlers the
// request's context but not the request.
func withRemoteHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), remoteHostKey{}, host)))
	})
}

// RemoteHost is the address of the peer that sent the call (never a
// client-supplied X-Forwarded-For), for limits keyed by caller in public
// mode; "" outside an HTTP call.
func RemoteHost(ctx context.Context) string {
	h, _ := ctx.Value(remoteHostKey{}).(string)
	return h
}
