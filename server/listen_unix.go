//go:build unix

package server

import (
	"net"
	"syscall"
)

// shrinkQueue sets a TCP listener's backlog to 0, the least the kernel
// allows (Linux then queues one completed connection and drops further
// SYNs, which clients retry), by calling listen(2) again on the socket.
// Failure is harmless: the queue keeps its size.
func shrinkQueue(ln net.Listener) {
	tl, ok := ln.(*net.TCPListener)
	if !ok {
		return
	}
	if raw, err := tl.SyscallConn(); err == nil {
		_ = raw.Control(func(fd uintptr) { _ = syscall.Listen(int(fd), 0) })
	}
}
