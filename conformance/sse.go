package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// Event is one dispatched server-sent event.
type Event struct {
	// Type is the event field; "" means the default type, "message".
	Type string
	// ID is the last event id field seen in the event, if any.
	ID string
	// Data is the data fields joined with "\n", as the HTML standard says.
	Data string
	// Retry is the retry field, verbatim.
	Retry string
}

// ParseSSE parses a complete text/event-stream body following the HTML
// standard's "event stream interpretation" (§9.2.6): lines end with CRLF, LF
// or CR; a blank line dispatches; "data" lines are joined with LF; a line
// starting with ':' is a comment; one space after the colon is dropped.
//
// It is stricter than a browser on one point, because the suite must see
// server faults a lenient client would hide: text after the last blank line
// (an event that was never dispatched) is returned as an error along with the
// events that were complete. Events with no data field are kept (a browser
// drops them) so that specs can flag them.
func ParseSSE(body []byte) ([]Event, error) {
	body = bytes.TrimPrefix(body, []byte("\xEF\xBB\xBF"))
	text := strings.ReplaceAll(strings.ReplaceAll(string(body), "\r\n", "\n"), "\r", "\n")
	var (
		events  []Event
		cur     Event
		data    []string
		hasData bool
		pending bool // a field was seen since the last dispatch
	)
	lines := strings.Split(text, "\n")
	// strings.Split leaves a final "" when the body ends with "\n"; that is
	// the end of the last line, not an empty line of its own.
	last := len(lines) - 1
	for i, line := range lines {
		if i == last && line == "" {
			break
		}
		if line == "" {
			if pending {
				if hasData {
					cur.Data = strings.Join(data, "\n")
				}
				events = append(events, cur)
			}
			cur, data, hasData, pending = Event{}, nil, false, false
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		pending = true
		switch field {
		case "data":
			data, hasData = append(data, value), true
		case "event":
			cur.Type = value
		case "id":
			if !strings.ContainsRune(value, 0) {
				cur.ID = value
			}
		case "retry":
			cur.Retry = value
		default:
			return events, fmt.Errorf("line %d: unknown SSE field %q", i+1, field)
		}
	}
	if pending {
		return events, errors.New("the stream ends inside an event: the last event is not followed by a blank line, so a client never dispatches it")
	}
	return events, nil
}
