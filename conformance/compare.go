package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// Decode parses JSON into plain Go values (numbers as float64), the form
// [JSONDiff] compares.
func Decode(raw []byte) (any, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// JSONDiff compares two JSON documents value by value (object key order and
// number spelling do not matter; 118 equals 118.0, 62.4 does not equal 62.41)
// and returns "" when they are equal, or a go-cmp diff with "-want +got".
func JSONDiff(want, got []byte) string {
	w, err := Decode(want)
	if err != nil {
		return fmt.Sprintf("expected document is not JSON: %v", err)
	}
	g, err := Decode(got)
	if err != nil {
		return fmt.Sprintf("got a body that is not JSON: %v\n%s", err, truncate(string(got), 800))
	}
	return cmp.Diff(w, g)
}

// SubstituteBase rewrites the samples' booking base URL to the configured one
// in every string of doc (the URLs in text content and in structuredContent).
func SubstituteBase(doc []byte, from, to string) []byte {
	if from == to {
		return doc
	}
	v, err := Decode(doc)
	if err != nil {
		return doc
	}
	v = mapStrings(v, func(s string) string { return strings.ReplaceAll(s, from, to) })
	out, _ := json.Marshal(v)
	return out
}

func mapStrings(v any, f func(string) string) any {
	switch t := v.(type) {
	case string:
		return f(t)
	case []any:
		for i := range t {
			t[i] = mapStrings(t[i], f)
		}
	case map[string]any:
		for k := range t {
			t[k] = mapStrings(t[k], f)
		}
	}
	return v
}

// ToolResult is the part of a tools/call result the suite inspects.
type ToolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// Text returns the concatenated text items of the result.
func (r ToolResult) Text() string {
	var b strings.Builder
	for _, c := range r.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// DecodeResult decodes a tools/call result strictly enough to see its shape.
func DecodeResult(raw json.RawMessage) (ToolResult, error) {
	var r ToolResult
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&r); err != nil {
		return r, fmt.Errorf("result is not a CallToolResult: %w", err)
	}
	return r, nil
}

// CheckTextConsistency checks that a successful result's text content says
// the same as its structuredContent: the fare with pence, the distance, the
// tariff band, the booking URL, the brand. bookingBase is where start_booking
// links must point. It returns every inconsistency found.
func CheckTextConsistency(tool string, r ToolResult, bookingBase string) []string {
	var problems []string
	if len(r.Content) == 0 {
		return []string{"content is empty: a successful result must carry a text item"}
	}
	for i, c := range r.Content {
		if c.Type != "text" {
			problems = append(problems, fmt.Sprintf("content[%d].type is %q, want \"text\"", i, c.Type))
		}
	}
	text := r.Text()
	var sc map[string]any
	if err := json.Unmarshal(r.StructuredContent, &sc); err != nil {
		return append(problems, "structuredContent is not an object: "+err.Error())
	}
	want := func(what, s string) {
		if !strings.Contains(text, s) {
			problems = append(problems, fmt.Sprintf("text %q does not state the %s %q", text, what, s))
		}
	}
	wantAny := func(what string, alts ...string) {
		for _, a := range alts {
			if strings.Contains(text, a) {
				return
			}
		}
		problems = append(problems, fmt.Sprintf("text %q does not state the %s (any of %q)", text, what, alts))
	}
	fare := func(q map[string]any) {
		if f, ok := q["fareGBP"].(float64); ok {
			want("fare", fmt.Sprintf("£%.2f", f))
			if math.Round(f*100) != f*100 && math.Abs(math.Round(f*100)-f*100) > 1e-6 {
				problems = append(problems, fmt.Sprintf("fareGBP %v is not a whole number of pence", f))
			}
		}
		// The contracts fix the wording of the sample only, so distance and
		// duration may be rounded any reasonable way.
		if d, ok := q["distanceMiles"].(float64); ok {
			wantAny("distance", strconv.FormatFloat(d, 'f', -1, 64)+" mile",
				fmt.Sprintf("%.1f mile", d), fmt.Sprintf("%d mile", int(math.Round(d))), fmt.Sprintf("%d mile", int(d)))
		}
		if s, ok := q["durationSeconds"].(float64); ok {
			wantAny("duration", fmt.Sprintf("%d min", int(math.Round(s/60))),
				fmt.Sprintf("%d min", int(math.Floor(s/60))), fmt.Sprintf("%d min", int(math.Ceil(s/60))))
		}
	}
	switch tool {
	case "estimate_fare":
		fare(sc)
		if rate, ok := sc["rate"].(string); ok {
			want("tariff band", rate+" tariff")
		}
	case "start_booking":
		q, _ := sc["quote"].(map[string]any)
		fare(q)
		u, _ := sc["bookingUrl"].(string)
		want("booking URL", u)
		problems = append(problems, checkBookingURL(u, q, sc, bookingBase)...)
		if sc["confirmed"] != false || sc["requiresPassengerAction"] != true {
			problems = append(problems, "start_booking must answer confirmed:false, requiresPassengerAction:true")
		}
	case "get_service_info":
		if b, ok := sc["brand"].(string); ok {
			want("brand", b)
		}
		if a, ok := sc["area"].(string); ok {
			want("area", a)
		}
	}
	return problems
}

// checkBookingURL checks that the link points at the booking site and that
// its query carries the quote and the prefilled inputs.
func checkBookingURL(raw string, quote, sc map[string]any, base string) []string {
	var problems []string
	if !strings.HasPrefix(raw, base+"/book?") {
		problems = append(problems, fmt.Sprintf("bookingUrl %q does not start with %q", raw, base+"/book?"))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return append(problems, fmt.Sprintf("bookingUrl %q: %v", raw, err))
	}
	q := u.Query()
	pre, _ := sc["prefilled"].(map[string]any)
	for _, k := range []string{"pickup", "dropoff", "vehicleType"} {
		if s, ok := pre[k].(string); ok && q.Get(k) != s {
			problems = append(problems, fmt.Sprintf("bookingUrl %s=%q, but prefilled.%s is %q", k, q.Get(k), k, s))
		}
	}
	if f, ok := quote["fareGBP"].(float64); ok && q.Get("fare") != fmt.Sprintf("%.2f", f) {
		problems = append(problems, fmt.Sprintf("bookingUrl fare=%q, but quote.fareGBP is %v", q.Get("fare"), f))
	}
	if vt, ok := quote["vehicleType"].(string); ok && pre["vehicleType"] != nil && pre["vehicleType"] != vt {
		problems = append(problems, fmt.Sprintf("quote.vehicleType %q differs from prefilled.vehicleType %v", vt, pre["vehicleType"]))
	}
	return problems
}
