package brokenserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A pricing fault must change the fare everywhere the reply states it, or
// the suite would catch it by the text alone rather than by the tariff.
func TestRepriceIsConsistent(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Booking session ready — fare £54.40 · 7 miles · 14 min.\n\nhttps://x.test/book?pickup=A&fare=54.40&distance=7"}],` +
		`"structuredContent":{"bookingUrl":"https://x.test/book?pickup=A&fare=54.40&distance=7","quote":{"fareGBP":54.4}}}}`
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	reprice(m, func(f float64, r []string) (float64, []string) { return f - 0.40, r })
	out, _ := json.Marshal(m)
	for _, want := range []string{`"fareGBP":54`, `fare=54.00`, `£54.00`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("repriced reply lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "54.40") {
		t.Errorf("the old fare survives:\n%s", out)
	}
	if got := surchargesOf([]string{"Night tariff (T2)", "Airport pickup/drop fee +£10", "Meet & greet +£25", "Pre-booking fee +£0.40"}); got != 35.40 {
		t.Errorf("surchargesOf = %v, want 35.40", got)
	}
}

// band-in-utc sends the upstream the instant whose UK wall clock shows the
// departure's UTC time, and puts the client's departAt back in the echo.
func TestBandInUTCShiftsAndRestores(t *testing.T) {
	var v Variant
	for _, x := range Variants() {
		if x.Name == "band-in-utc" {
			v = x
		}
	}
	var sent string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var req struct {
			Params struct {
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
		}
		_ = json.Unmarshal(b, &req)
		sent, _ = req.Params.Arguments["departAt"].(string)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"prefilled":{"departAt":"`+sent+`"}}}}`)
	}))
	defer up.Close()
	px := httptest.NewServer(Proxy(up.URL, v, Options{}))
	defer px.Close()
	resp, err := http.Post(px.URL+"/mcp", "application/json", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"start_booking","arguments":{"departAt":"2027-07-15T21:30:00Z"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if sent != "2027-07-15T21:30:00+01:00" {
		t.Errorf("upstream got departAt %q, want 21:30 BST", sent)
	}
	if !strings.Contains(string(b), `"2027-07-15T21:30:00Z"`) {
		t.Errorf("the echo was not restored: %s", b)
	}
}
