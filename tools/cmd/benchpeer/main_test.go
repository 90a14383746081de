package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The peer must do the work trident-mcp does for the benchmark's call, or
// the comparison means nothing: the same quote, and arguments checked
// against the contract's input schema.
func TestPeerAnswersLikeTrident(t *testing.T) {
	day := time.Date(2025, 6, 18, 9, 0, 0, 0, time.UTC)
	h, err := peerHandler(func() time.Time { return day })
	if err != nil {
		t.Fatal(err)
	}
	call := func(args string) string {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"estimate_fare","arguments":` + args + `}}`
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("HTTP %d %s: %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
		return rec.Body.String()
	}
	got := call(`{"pickup":"Helensburgh Central Station","dropoff":"Glasgow Airport","vehicleType":"executive","meetAndGreet":false}`)
	for _, want := range []string{`"text":"£62.40 · 22 miles · 33 min · day tariff"`, `"fareGBP":62.4`, `"durationSeconds":1980`, `"appliedRules":["Executive rate applied","Airport pickup/drop fee +£10"]`} {
		if !strings.Contains(got, want) {
			t.Errorf("reply lacks %s:\n%s", want, got)
		}
	}
	if got := call(`{"pickup":"ab","dropoff":"Glasgow Airport"}`); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "validation failed") {
		t.Errorf("schema-invalid arguments were not refused:\n%s", got)
	}
}

func TestFloorRepliesCanned(t *testing.T) {
	rec := httptest.NewRecorder()
	floorHandler([]byte(`{"ok":1}`)).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader("{}")))
	if rec.Body.String() != `{"ok":1}` || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("floor answered %q %q", rec.Header().Get("Content-Type"), rec.Body)
	}
}

// A reply past net/http's 2 KB response buffer (a Relay search's, ~18 KB)
// goes out with its length stated, as trident-mcp sends it, not chunked.
func TestFloorStatesALongReplysLength(t *testing.T) {
	reply := `{"text":"` + strings.Repeat("x", 18<<10) + `"}`
	srv := httptest.NewServer(floorHandler([]byte(reply)))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/mcp/rides", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ContentLength != int64(len(reply)) || len(resp.TransferEncoding) != 0 || string(body) != reply {
		t.Errorf("reply framed with length %d and transfer encoding %v, body of %d bytes; want length %d, no chunking, the reply",
			resp.ContentLength, resp.TransferEncoding, len(body), len(reply))
	}
}
