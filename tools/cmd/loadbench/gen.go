package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The load generator is written against raw keep-alive TCP connections, in
// the manner of wrk: each connection sends one pre-serialised HTTP/1.1
// request, reads the reply, and sends the next (a closed loop). Compared
// with net/http's client (a read and a write goroutine per connection,
// channels, a header map per response) it spends a fraction of the CPU per
// request, which matters when generator and servers share two cores: the
// canned-reply floor shows how much headroom it leaves.

// load is one measured run against one target.
type load struct {
	requests  int
	errors    int
	elapsed   time.Duration
	latencies []time.Duration // sorted
	// The generator's own CPU (this process's user and system time) over
	// the whole run, warm-up included, and every request it sent in that
	// time: what one request costs the generator, apart from any server.
	genCPU time.Duration
	sent   int
	// The server's CPU over the same span, read from /proc (zero when the
	// server is not a process of ours): its cost per request, which the
	// machine's other load (this VM's host steals a tenth to a quarter of
	// its time) moves far less than it moves throughput.
	srvCPU time.Duration
}

// genPerRequest is the generator's CPU per request.
func (l load) genPerRequest() time.Duration { return l.perRequest(l.genCPU) }

// srvPerRequest is the server's CPU per request.
func (l load) srvPerRequest() time.Duration { return l.perRequest(l.srvCPU) }

// perRequest is cpu, spent over the whole run, per request sent in it.
func (l load) perRequest(cpu time.Duration) time.Duration {
	if l.sent == 0 {
		return 0
	}
	return cpu / time.Duration(l.sent)
}

func (l load) rps() float64 { return float64(l.requests) / l.elapsed.Seconds() }

// pct is the p-quantile (0..1) of the recorded latencies, exact: every
// latency is kept, which at these rates is a few MB.
func (l load) pct(p float64) time.Duration {
	if len(l.latencies) == 0 {
		return 0
	}
	return l.latencies[int(p*float64(len(l.latencies)-1)+0.5)]
}

// merge pools runs of the same target (the A B A B rounds).
func merge(runs []load) load {
	var m load
	for _, r := range runs {
		m.requests += r.requests
		m.errors += r.errors
		m.elapsed += r.elapsed
		m.latencies = append(m.latencies, r.latencies...)
		m.genCPU += r.genCPU
		m.srvCPU += r.srvCPU
		m.sent += r.sent
	}
	slices.Sort(m.latencies)
	return m
}

// request is one pre-built HTTP/1.1 request and what a good reply contains.
type request struct {
	raw  []byte
	want []byte
}

func newRequest(addr, path, body string, header map[string]string, want string) request {
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n", path, addr)
	for k, v := range header {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return request{raw: b.Bytes(), want: []byte(want)}
}

// drive runs conns closed-loop connections against addr for warm (not
// recorded) and then d (recorded); pid, when not 0, is the server's
// process, whose CPU over the run is recorded too.
func drive(addr string, pid int, req request, conns int, warm, d time.Duration) (load, error) {
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		out     load
		firstEr error
	)
	cpu0, srv0 := processCPU(), serverCPU(pid)
	start := time.Now()
	measureFrom := start.Add(warm)
	stop := measureFrom.Add(d)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, 1<<14)
			errs, sent := 0, 0
			var lastErr error
			c := &client{addr: addr}
			defer c.close()
			for {
				t0 := time.Now()
				if !t0.Before(stop) {
					break
				}
				err := c.do(req)
				t1 := time.Now()
				sent++
				if t0.Before(measureFrom) {
					continue
				}
				if err != nil {
					errs++
					lastErr = err
					continue
				}
				lat = append(lat, t1.Sub(t0))
			}
			mu.Lock()
			out.latencies = append(out.latencies, lat...)
			out.errors += errs
			out.sent += sent
			if firstEr == nil {
				firstEr = lastErr
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	out.genCPU = processCPU() - cpu0
	out.srvCPU = serverCPU(pid) - srv0
	out.elapsed = d
	out.requests = len(out.latencies)
	slices.Sort(out.latencies)
	if out.errors > 0 {
		return out, fmt.Errorf("%d of %d requests failed, e.g.: %w", out.errors, out.errors+out.requests, firstEr)
	}
	return out, nil
}

// client is one keep-alive connection, re-dialled when the server closes it.
type client struct {
	addr string
	conn net.Conn
	r    *bufio.Reader
	body []byte
}

func (c *client) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

// do sends req and reads one reply, which must be 200 and contain req.want.
func (c *client) do(req request) error {
	if c.conn == nil {
		conn, err := net.Dial("tcp", c.addr)
		if err != nil {
			return err
		}
		c.conn = conn
		if c.r == nil {
			c.r = bufio.NewReaderSize(conn, 16<<10)
		} else {
			c.r.Reset(conn)
		}
	}
	if _, err := c.conn.Write(req.raw); err != nil {
		c.close()
		return err
	}
	status, keep, err := c.readReply()
	if err != nil {
		c.close()
		return err
	}
	if !keep {
		c.close()
	}
	if status != 200 {
		return fmt.Errorf("HTTP %d: %.200s", status, c.body)
	}
	if !bytes.Contains(c.body, req.want) {
		return fmt.Errorf("reply lacks %q: %.300s", req.want, c.body)
	}
	return nil
}

var errMalformed = errors.New("malformed HTTP reply")

// readReply reads a status line, headers, and a Content-Length or chunked
// body into c.body.
func (c *client) readReply() (status int, keepAlive bool, err error) {
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, false, errMalformed
	}
	status, err = strconv.Atoi(string(line[9:12]))
	if err != nil {
		return 0, false, errMalformed
	}
	length, chunked := -1, false
	keepAlive = true
	for {
		h, err := c.r.ReadSlice('\n')
		if err != nil {
			return 0, false, err
		}
		h = bytes.TrimRight(h, "\r\n")
		if len(h) == 0 {
			break
		}
		name, value, ok := bytes.Cut(h, []byte(":"))
		if !ok {
			return 0, false, errMalformed
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(value)); err != nil {
				return 0, false, errMalformed
			}
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			keepAlive = !bytes.EqualFold(value, []byte("close"))
		}
	}
	c.body = c.body[:0]
	switch {
	case chunked:
		for {
			sz, err := c.r.ReadSlice('\n')
			if err != nil {
				return 0, false, err
			}
			n, err := strconv.ParseInt(string(bytes.TrimRight(sz, "\r\n")), 16, 64)
			if err != nil {
				return 0, false, errMalformed
			}
			if err := c.readN(int(n) + 2); err != nil { // data and its CRLF
				return 0, false, err
			}
			c.body = c.body[:len(c.body)-2]
			if n == 0 {
				return status, keepAlive, nil
			}
		}
	case length >= 0:
		return status, keepAlive, c.readN(length)
	default:
		return 0, false, errors.New("reply without Content-Length or chunked body")
	}
}

func (c *client) readN(n int) error {
	off := len(c.body)
	c.body = slices.Grow(c.body, n)[:off+n]
	_, err := io.ReadFull(c.r, c.body[off:])
	return err
}

// processCPU is the user and system time this process has used: the
// generator's, since the servers under test are processes of their own.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serverCPU is process pid's user and system time from /proc/pid/stat (in
// clock ticks of 1/100 s, Linux's USER_HZ), or 0 when pid is 0 or
// unreadable.
func serverCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; the fields after its
	// closing parenthesis start at field 3, so utime and stime (14, 15)
	// are the 12th and 13th of them.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(ut+st) * 10 * time.Millisecond
}
