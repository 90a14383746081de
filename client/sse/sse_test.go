package sse

import (
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// decodeAll reads every event; it returns the terminal error too.
func decodeAll(r io.Reader, max int) ([]Event, error) {
	d := NewDecoder(r, max)
	var evs []Event
	for {
		ev, err := d.Next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestDecoder(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Event
		wantErr error
	}{
		{
			name: "one event",
			in:   "data: {\"a\":1}\n\n",
			want: []Event{{Type: "message", Data: `{"a":1}`}},
		},
		{
			name: "data lines join with LF",
			in:   "data: one\ndata:two\ndata:  three\n\n",
			want: []Event{{Type: "message", Data: "one\ntwo\n three"}},
		},
		{
			name: "CRLF line ends",
			in:   "event: x\r\ndata: a\r\n\r\ndata: b\r\n\r\n",
			want: []Event{{Type: "x", Data: "a"}, {Type: "message", Data: "b"}},
		},
		{
			name: "CR line ends",
			in:   "data: a\rdata: b\r\rdata: c\r\r",
			want: []Event{{Type: "message", Data: "a\nb"}, {Type: "message", Data: "c"}},
		},
		{
			name: "leading BOM is dropped once",
			in:   "\uFEFFdata: a\n\n\uFEFFdata: b\n\n",
			want: []Event{{Type: "message", Data: "a"}},
		},
		{
			name: "comments and unknown fields are ignored",
			in:   ": keep-alive\nfoo: bar\ndata: a\n:another\n\n",
			want: []Event{{Type: "message", Data: "a"}},
		},
		{
			name: "id persists across events and NUL ids are ignored",
			in:   "id: 7\ndata: a\n\ndata: b\n\nid: x\x00y\ndata: c\n\nid\ndata: d\n\n",
			want: []Event{
				{Type: "message", Data: "a", ID: "7"},
				{Type: "message", Data: "b", ID: "7"},
				{Type: "message", Data: "c", ID: "7"},
				{Type: "message", Data: "d", ID: ""},
			},
		},
		{
			name: "retry accepts digits only",
			in:   "retry: 1500\ndata: a\n\nretry: 2s\ndata: b\n\nretry:\ndata: c\n\n",
			want: []Event{
				{Type: "message", Data: "a", Retry: 1500 * time.Millisecond},
				{Type: "message", Data: "b", Retry: 1500 * time.Millisecond},
				{Type: "message", Data: "c", Retry: 1500 * time.Millisecond},
			},
		},
		{
			name: "empty data field still dispatches",
			in:   "data\n\ndata:\n\n",
			want: []Event{{Type: "message", Data: ""}, {Type: "message", Data: ""}},
		},
		{
			name: "event without data is not dispatched and its type is reset",
			in:   "event: ping\n\ndata: a\n\n",
			want: []Event{{Type: "message", Data: "a"}},
		},
		{
			name: "field without colon",
			in:   "data\ndata\n\n",
			want: []Event{{Type: "message", Data: "\n"}},
		},
		{
			name:    "incomplete last event is discarded",
			in:      "data: a\n\ndata: b\n",
			want:    []Event{{Type: "message", Data: "a"}},
			wantErr: io.ErrUnexpectedEOF,
		},
		{
			name:    "unterminated last line is discarded",
			in:      "data: a\n\ndata: b",
			want:    []Event{{Type: "message", Data: "a"}},
			wantErr: io.ErrUnexpectedEOF,
		},
		{
			name: "empty stream",
			in:   "",
		},
		{
			name:    "only a BOM fragment",
			in:      "\xEF\xBB",
			wantErr: io.ErrUnexpectedEOF,
		},
	}
	readers := map[string]func(string) io.Reader{
		"whole":    func(s string) io.Reader { return strings.NewReader(s) },
		"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"half":     func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
	}
	for _, tt := range tests {
		for rname, mk := range readers {
			t.Run(tt.name+"/"+rname, func(t *testing.T) {
				got, err := decodeAll(mk(tt.in), 0)
				wantErr := tt.wantErr
				if wantErr == nil {
					wantErr = io.EOF
				}
				if !errors.Is(err, wantErr) {
					t.Errorf("error = %v, want %v", err, wantErr)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// A CR at the end of one read and the LF at the start of the next are one
// line end, not two (which would dispatch an event early).
func TestDecoderCRLFSplitAcrossReads(t *testing.T) {
	r := &chunkReader{chunks: []string{"data: a\r", "\ndata: b\r", "\n\r", "\n"}}
	got, err := decodeAll(r, 0)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("error = %v", err)
	}
	want := []Event{{Type: "message", Data: "a\nb"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestDecoderSizeCap(t *testing.T) {
	tests := []struct {
		name string
		in   string
	}{
		{"one long line", "data: " + strings.Repeat("x", 200) + "\n\n"},
		{"many data lines", strings.Repeat("data: "+strings.Repeat("x", 30)+"\n", 10) + "\n"},
		{"endless line", strings.Repeat("y", 100000)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeAll(iotest.HalfReader(strings.NewReader("data: ok\n\n"+tt.in)), 100)
			if !errors.Is(err, ErrEventTooLarge) {
				t.Fatalf("error = %v, want ErrEventTooLarge", err)
			}
			if diff := cmp.Diff([]Event{{Type: "message", Data: "ok"}}, got); diff != "" {
				t.Errorf("events before the cap (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecoderReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom))
	got, err := decodeAll(r, 0)
	if !errors.Is(err, boom) {
		t.Fatalf("error = %v, want %v", err, boom)
	}
	if diff := cmp.Diff([]Event{{Type: "message", Data: "a"}}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// A stream cut in the middle of an event is resumed from the event before
// it: the cut event's id must not become the last event ID, or the server
// would resume after an event the client never received.
func TestLastEventIDTakesEffectAtDispatch(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"cut after the id of an unfinished event", "id: 1\ndata: a\n\nid: 2\ndata: {\"partial", "1"},
		{"cut before the blank line", "id: 1\ndata: a\n\nid: 2\ndata: b\n", "1"},
		{"an event without data still sets it", "id: 1\ndata: a\n\nid: 2\n\n", "2"},
		{"an empty id resets it", "id: 1\ndata: a\n\nid\n\n", ""},
		{"none yet", "id: 9\ndata: a", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder(strings.NewReader(tt.in), 0)
			for {
				if _, err := d.Next(); err != nil {
					break
				}
			}
			if got := d.LastEventID(); got != tt.want {
				t.Errorf("LastEventID = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDecoderAccessors(t *testing.T) {
	d := NewDecoder(strings.NewReader("id: 42\nretry: 3000\n: no data\n\n"), 0)
	if _, err := d.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("error = %v, want io.EOF", err)
	}
	if d.LastEventID() != "42" {
		t.Errorf("LastEventID = %q, want 42", d.LastEventID())
	}
	if r, ok := d.Retry(); !ok || r != 3*time.Second {
		t.Errorf("Retry = %v, %v; want 3s, true", r, ok)
	}
}

type chunkReader struct{ chunks []string }

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	c.chunks[0] = c.chunks[0][n:]
	if c.chunks[0] == "" {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

// reference is a literal transcription of the WHATWG interpretation rules,
// written for clarity, not speed: the whole input is split into lines first.
// It returns the dispatched events and the last event ID string.
func reference(in string) ([]Event, string) {
	in = strings.TrimPrefix(in, "\uFEFF")
	lines := eol.Split(in, -1)
	lines = lines[:len(lines)-1] // the text after the last line end is not a line
	var (
		evs       []Event
		data, typ string
		id        string
		lastID    string
		retry     time.Duration
	)
	for _, line := range lines {
		switch {
		case line == "":
			lastID = id
			if data == "" {
				typ = ""
				continue
			}
			data = strings.TrimSuffix(data, "\n")
			if typ == "" {
				typ = "message"
			}
			evs = append(evs, Event{Type: typ, Data: data, ID: id, Retry: retry})
			data, typ = "", ""
			continue
		case strings.HasPrefix(line, ":"):
			continue
		}
		name, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch name {
		case "event":
			typ = value
		case "data":
			data += value + "\n"
		case "id":
			if !strings.Contains(value, "\x00") {
				id = value
			}
		case "retry":
			if digits.MatchString(value) {
				if ms, err := strconv.ParseInt(value, 10, 64); err == nil && ms <= int64(time.Duration(1<<63-1)/time.Millisecond) {
					retry = time.Duration(ms) * time.Millisecond
				}
			}
		}
	}
	return evs, lastID
}

var (
	eol    = regexp.MustCompile("\r\n|\r|\n")
	digits = regexp.MustCompile(`^[0-9]+$`)
)

func TestReferenceAgreesOnTable(t *testing.T) {
	in := "\uFEFFid: 1\r\nevent: e\rdata: a\n\ndata: b\r\n\r\nretry: 5\ndata:c\n\n"
	got, _ := decodeAll(strings.NewReader(in), 0)
	want, _ := reference(in)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoder vs reference (-ref +got):\n%s", diff)
	}
}

// FuzzDecoder checks the decoder against the reference transcription of the
// spec (the events and the last event ID a resumption would send), and that
// the way the input is split into reads never changes them.
func FuzzDecoder(f *testing.F) {
	for _, s := range []string{
		"data: a\n\n",
		"data: a\r\ndata: b\r\n\r\n",
		"data: a\r\rid: 3\rdata: b\r\r",
		"\uFEFFevent: x\ndata\n\n",
		": comment\nretry: 100\nid: a\x00b\ndata: c\n\n",
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
		"data: partial",
		"id: 1\ndata: a\n\nid: 2\ndata: b",
		"\r\n\r\n\n\r",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		want, wantID := reference(in)
		for name, r := range map[string]io.Reader{
			"whole":    strings.NewReader(in),
			"one byte": iotest.OneByteReader(strings.NewReader(in)),
			"half":     iotest.HalfReader(strings.NewReader(in)),
		} {
			d := NewDecoder(r, len(in)+16)
			var got []Event
			var err error
			for {
				var ev Event
				if ev, err = d.Next(); err != nil {
					break
				}
				got = append(got, ev)
			}
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("%s: unexpected error %v", name, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s: decoder vs reference for %q (-ref +got):\n%s", name, in, diff)
			}
			if d.LastEventID() != wantID {
				t.Fatalf("%s: LastEventID for %q = %q, reference %q", name, in, d.LastEventID(), wantID)
			}
		}
	})
}
