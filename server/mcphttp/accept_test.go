package mcphttp

import "testing"

func TestAccepts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		values   []string
		json, ss bool
	}{
		{"both", []string{"application/json, text/event-stream"}, true, true},
		{"both, other order, with parameters", []string{"text/event-stream;q=0.9, application/json;charset=utf-8"}, true, true},
		{"both, in two header lines", []string{"application/json", "text/event-stream"}, true, true},
		{"case and spaces", []string{" Application/JSON ,TEXT/Event-Stream "}, true, true},
		{"absent", nil, false, false},
		{"empty", []string{""}, false, false},
		{"json only", []string{"application/json"}, true, false},
		{"sse only", []string{"text/event-stream"}, false, true},
		{"*/* (what curl and fetch send by default)", []string{"*/*"}, false, false},
		{"type wildcards", []string{"application/*, text/*"}, false, false},
		{"json and a wildcard for the stream", []string{"application/json, */*;q=0.8"}, true, false},
		{"sse refused with q=0", []string{"application/json, text/event-stream;q=0"}, true, false},
		{"json refused with q=0.000", []string{"application/json; q=0.000, text/event-stream"}, false, true},
		{"q above zero counts", []string{"application/json;q=0.1, text/event-stream;q=0.001"}, true, true},
		{"a malformed q is not a refusal", []string{"application/json;q=x, text/event-stream"}, true, true},
		{"a suffix is another type", []string{"application/json-seq, text/event-streams"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, s := accepts(tc.values)
			if j != tc.json || s != tc.ss {
				t.Errorf("accepts(%q) = json %t, sse %t; want %t, %t", tc.values, j, s, tc.json, tc.ss)
			}
		})
	}
}
