package server

import "github.com/tridenttaxis/trident-mcp/server/fastcall"

// FastCalls is how many calls s answered on the fast path, for the
// differential tests in package server_test.
func FastCalls(s *Server) uint64 {
	if h, ok := s.jsonMCP.(*fastcall.Handler); ok {
		return h.Served()
	}
	return 0
}
