package client_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/client"
)

// recordingTransport keeps every request's headers and body and answers
// each with reply.
type recordingTransport struct {
	reply   string
	bodies  []string
	headers []http.Header
}

func (t *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	t.bodies, t.headers = append(t.bodies, string(b)), append(t.headers, r.Header.Clone())
	return &http.Response{
		StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    io.NopCloser(bytes.NewReader([]byte(t.reply))),
		Request: r,
	}, nil
}

// The bytes of a tools/call are fixed: params' members in key order,
// HTML-escaped as encoding/json escapes, and the headers every POST carries.
func TestCallWireBytes(t *testing.T) {
	rt := &recordingTransport{reply: `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}],"structuredContent":{"fareGBP":12.5}}}`}
	c, err := client.New("http://mcp.test/mcp", client.WithHTTPClient(&http.Client{Transport: rt}), client.WithProtocolVersion(client.DocumentedProtocolVersion))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		FareGBP float64 `json:"fareGBP"`
	}
	res, err := c.Call(context.Background(), "estimate_fare", map[string]any{"pickup": "56.0036,-4.7346", "note": "<a&b>"}, &out)
	if err != nil || out.FareGBP != 12.5 || res.Text() != "ok" {
		t.Fatalf("Call = %+v, %v (out %+v)", res, err, out)
	}
	want := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"note":"\u003ca\u0026b\u003e","pickup":"56.0036,-4.7346"},"name":"estimate_fare"}}`
	if len(rt.bodies) != 1 || rt.bodies[0] != want {
		t.Errorf("bodies %q, want one %q", rt.bodies, want)
	}
	wantHeader := http.Header{
		"Accept":               {"application/json, text/event-stream"},
		"Content-Type":         {"application/json"},
		"Mcp-Protocol-Version": {client.DocumentedProtocolVersion},
	}
	if diff := cmp.Diff(wantHeader, rt.headers[0]); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
}
