package main

import "net"

// listenBaseURL is PUBLIC_BASE_URL when it is unset: the URL of the
// address the server listens on, so that a server started with only ADDR
// advertises where it is (in its resource metadata, its 401 challenges and
// its documentation) rather than another port. addr is ADDR as given;
// bound is the listener's address, whose port counts when ADDR asks for
// any (":0"). A host left out or unspecified (":9000", "0.0.0.0:9000",
// "[::]:9000") becomes localhost, the name a client on the same machine
// reaches every interface by; behind a proxy or on another machine, set
// PUBLIC_BASE_URL.
func listenBaseURL(addr string, bound net.Addr) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = ""
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	_, port, err := net.SplitHostPort(bound.String())
	if err != nil {
		return "http://" + host
	}
	return "http://" + net.JoinHostPort(host, port)
}
