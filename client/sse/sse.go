package sse

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"
)

// DefaultMaxEventSize is the cap on one event when [NewDecoder] is given 0:
// large enough for any MCP tool result this project returns, small enough
// that a runaway stream cannot exhaust memory.
const DefaultMaxEventSize = 4 << 20

// ErrEventTooLarge is returned when one line or one event's data grows past
// the decoder's cap. The decoder stops there: the rest of the stream cannot
// be framed reliably.
var ErrEventTooLarge = errors.New("sse: event exceeds the size limit")

// Event is one dispatched server-sent event.
type Event struct {
	// Type is the "event" field, or "message" when the event had none.
	Type string
	// Data is the event's data lines joined with "\n".
	Data string
	// ID is the last event ID in force when the event was dispatched: the
	// most recent "id" field of the stream, carried over from earlier events
	// as the spec says, "" if the stream never set one.
	ID string
	// Retry is the reconnection time in force when the event was dispatched:
	// the most recent valid "retry" field, 0 if the stream never sent one.
	Retry time.Duration
}

// Decoder reads events from a text/event-stream. It is not safe for
// concurrent use.
type Decoder struct {
	r   io.Reader
	max int

	buf        []byte // read buffer; buf[start:end] is unread
	start, end int
	bomChecked bool
	skipLF     bool // the last line ended in CR: a leading LF completes a CRLF
	eof        bool
	err        error // sticky: a read error or ErrEventTooLarge

	data   []byte // data buffer, each line followed by '\n'
	typ    string // event type buffer
	sawTyp bool
	id     string // last event ID buffer: what the id fields said so far
	lastID string // last event ID string: the buffer as of the last dispatch
	retry  time.Duration
}

// NewDecoder returns a decoder reading from r. maxEventSize caps both one line
// and one event's data in bytes; 0 means [DefaultMaxEventSize].
func NewDecoder(r io.Reader, maxEventSize int) *Decoder {
	if maxEventSize <= 0 {
		maxEventSize = DefaultMaxEventSize
	}
	return &Decoder{r: r, max: maxEventSize, buf: make([]byte, 16<<10)}
}

// LastEventID returns the event source's last event ID string: what a
// client sends as Last-Event-ID to resume the stream. As the spec says, an
// id field takes effect only when its event is dispatched (at the blank line
// that ends it, even an event without data): a stream cut in the middle of
// an event must be resumed from the event before it, or the server would
// skip the event that never arrived.
func (d *Decoder) LastEventID() string { return d.lastID }

// Retry returns the reconnection time the stream asked for, and whether it
// asked at all.
func (d *Decoder) Retry() (time.Duration, bool) { return d.retry, d.retry > 0 }

// Next returns the next event. At the end of the stream it returns io.EOF,
// or io.ErrUnexpectedEOF when the stream stopped in the middle of an event
// (which, as the spec says, is discarded, not dispatched). Other errors are
// the reader's, or [ErrEventTooLarge].
func (d *Decoder) Next() (Event, error) {
	for {
		line, err := d.readLine()
		if err != nil {
			if err == io.EOF && (len(line) > 0 || len(d.data) > 0 || d.sawTyp) {
				err = io.ErrUnexpectedEOF
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if ev, ok := d.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		if err := d.field(line); err != nil {
			d.err = err
			return Event{}, err
		}
	}
}

// field processes one non-empty line.
func (d *Decoder) field(line []byte) error {
	if line[0] == ':' {
		return nil // comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "event":
		d.typ, d.sawTyp = string(value), true
	case "data":
		if len(d.data)+len(value)+1 > d.max {
			return ErrEventTooLarge
		}
		d.data = append(d.data, value...)
		d.data = append(d.data, '\n')
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			d.id = string(value)
		}
	case "retry":
		if ms, ok := parseRetry(value); ok {
			d.retry = time.Duration(ms) * time.Millisecond
		}
	}
	return nil
}

// parseRetry accepts only ASCII digits, as the spec says; a value too large
// for a Duration is ignored like any other invalid one.
func parseRetry(v []byte) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	ms, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || ms > int64(time.Duration(1<<63-1)/time.Millisecond) {
		return 0, false
	}
	return ms, true
}

func (d *Decoder) dispatch() (Event, bool) {
	d.lastID = d.id
	typ := d.typ
	d.typ, d.sawTyp = "", false
	if len(d.data) == 0 {
		return Event{}, false
	}
	if typ == "" {
		typ = "message"
	}
	ev := Event{Type: typ, Data: string(d.data[:len(d.data)-1]), ID: d.id, Retry: d.retry}
	d.data = d.data[:0]
	return ev, true
}

// readLine returns the next line without its terminator. The slice is valid
// until the next call. At the end of input it returns what is left of an
// unterminated line together with io.EOF.
func (d *Decoder) readLine() ([]byte, error) {
	if d.err != nil {
		return nil, d.err
	}
	for {
		if !d.bomChecked {
			if d.end-d.start >= 3 || d.eof {
				if bytes.HasPrefix(d.buf[d.start:d.end], bom) {
					d.start += len(bom)
				}
				d.bomChecked = true
			}
		}
		if d.bomChecked {
			if d.skipLF && d.start < d.end {
				if d.buf[d.start] == '\n' {
					d.start++
				}
				d.skipLF = false
			}
			if i := indexEOL(d.buf[d.start:d.end]); i >= 0 {
				line := d.buf[d.start : d.start+i]
				if d.buf[d.start+i] == '\r' {
					d.skipLF = true
				}
				d.start += i + 1
				return line, nil
			}
			if d.eof {
				line := d.buf[d.start:d.end]
				d.start = d.end
				d.err = io.EOF
				return line, io.EOF
			}
			if d.end-d.start > d.max {
				d.err = ErrEventTooLarge
				return nil, d.err
			}
		}
		if err := d.fill(); err != nil {
			d.err = err
			return nil, err
		}
	}
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// indexEOL finds the first CR or LF. bytes.IndexAny walks byte by byte; two
// IndexByte calls use the assembly fast path and win on long data lines.
func indexEOL(b []byte) int {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
		return j
	}
	return i
}

// fill reads more input, compacting and growing the buffer as needed. It
// sets d.eof at the end of input and returns other read errors.
func (d *Decoder) fill() error {
	if d.start > 0 {
		n := copy(d.buf, d.buf[d.start:d.end])
		d.start, d.end = 0, n
	}
	if d.end == len(d.buf) {
		nb := make([]byte, 2*len(d.buf))
		copy(nb, d.buf[:d.end])
		d.buf = nb
	}
	for range 100 {
		n, err := d.r.Read(d.buf[d.end:])
		d.end += n
		if err == io.EOF {
			d.eof = true
			return nil
		}
		if err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
	}
	return io.ErrNoProgress
}
