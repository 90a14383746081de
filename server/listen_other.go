//go:build !unix

package server

import "net"

// shrinkQueue is a no-op where listen(2) cannot be called again.
func shrinkQueue(net.Listener) {}
