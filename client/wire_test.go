package client_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tridenttaxis/trident-mcp/client"
)

// recordingTransport keeps every request's headers and body and answers
// each with reply.
type recordingTransport struct {
	reply         string
	contentLength int64 // the reply's declared length; zero: unset
	bodies        []string
	headers       []http.Header
}

func (t *recordingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	t.bodies, t.headers = append(t.bodies, string(b)), append(t.headers, r.Header.Clone())
	return &http.Response{
		StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader([]byte(t.reply))),
		ContentLength: t.contentLength,
		Request:       r,
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

// A tools/call's reply decodes as it always did, whichever way the client
// reads it: the common reply in one pass, anything else the general way.
func TestCallReplyDecoding(t *testing.T) {
	type out struct {
		FareGBP float64 `json:"fareGBP"`
	}
	tests := []struct {
		name, reply string
		want        *client.Result // nil: Call returns no result
		wantOut     out
		wantErr     string // "" for none
	}{
		{"result", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"},{"type":"image","data":"AA=="}],"structuredContent":{"fareGBP":1.5},"_meta":{"k":1}}}`,
			&client.Result{Content: []client.Content{{Type: "text", Text: "ok", Raw: []byte(`{"type":"text","text":"ok"}`)}, {Type: "image", Raw: []byte(`{"type":"image","data":"AA=="}`)}},
				StructuredContent: []byte(`{"fareGBP":1.5}`), Meta: []byte(`{"k":1}`)}, out{1.5}, ""},
		{"id as spaced", `{"jsonrpc":"2.0","id": 1 ,"result":{"content":[],"structuredContent":{"fareGBP":2}}}`,
			&client.Result{Content: []client.Content{}, StructuredContent: []byte(`{"fareGBP":2}`)}, out{2}, ""},
		{"null result", `{"jsonrpc":"2.0","id":1,"result":null}`, &client.Result{}, out{}, "no structuredContent"},
		{"no result", `{"jsonrpc":"2.0","id":1}`, &client.Result{}, out{}, "no structuredContent"},
		{"tool error", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"no"}],"structuredContent":{"fareGBP":3},"isError":true}}`,
			&client.Result{Content: []client.Content{{Type: "text", Text: "no", Raw: []byte(`{"type":"text","text":"no"}`)}}, StructuredContent: []byte(`{"fareGBP":3}`), IsError: true}, out{}, "no"},
		{"error and result", `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":4}},"error":{"code":-32603,"message":"boom"}}`, nil, out{}, "boom"},
		{"other id", `{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"fareGBP":5}}}`, nil, out{}, "reply id 2 does not answer request id 1"},
		{"bad content", `{"jsonrpc":"2.0","id":1,"result":{"content":5}}`, nil, out{}, "tools/call: decoding result"},
		{"bad structured content", `{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"fareGBP":"x"}}}`,
			&client.Result{StructuredContent: []byte(`{"fareGBP":"x"}`)}, out{}, "decoding structuredContent"},
		{"not JSON", `{"jsonrpc":"2.0","id":1,"result":{`, nil, out{}, "decoding reply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt := &recordingTransport{reply: tt.reply}
			c, err := client.New("http://mcp.test/mcp", client.WithHTTPClient(&http.Client{Transport: rt}),
				client.WithProtocolVersion(client.DocumentedProtocolVersion), client.WithRetry(client.RetryPolicy{MaxAttempts: 1}))
			if err != nil {
				t.Fatal(err)
			}
			var got out
			res, err := c.Call(context.Background(), "estimate_fare", nil, &got)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("error %v, want one saying %q", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, res); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if got != tt.wantOut {
				t.Errorf("out %+v, want %+v", got, tt.wantOut)
			}
		})
	}
}

// A reply is read whole whatever Content-Length it declares, and one
// longer than the client's limit is refused, declared or not.
func TestCallReplyLength(t *testing.T) {
	reply := `{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"fareGBP":7}}}`
	n := int64(len(reply))
	for _, tt := range []struct {
		declared, limit int64
		wantErr         string
	}{
		{n, 0, ""}, {-1, 0, ""}, {n - 10, 0, ""}, {n + 10, 0, ""}, {1, 0, ""},
		{n, n, ""}, {n, n - 1, "reply larger than"}, {n - 10, n - 1, "reply larger than"}, {n + 10, n - 1, "reply larger than"},
	} {
		opts := []client.Option{client.WithHTTPClient(&http.Client{Transport: &recordingTransport{reply: reply, contentLength: tt.declared}}),
			client.WithProtocolVersion(client.DocumentedProtocolVersion), client.WithRetry(client.RetryPolicy{MaxAttempts: 1})}
		if tt.limit > 0 {
			opts = append(opts, client.WithMaxResponseBytes(tt.limit))
		}
		c, err := client.New("http://mcp.test/mcp", opts...)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			FareGBP float64 `json:"fareGBP"`
		}
		_, err = c.Call(context.Background(), "estimate_fare", nil, &out)
		switch {
		case tt.wantErr == "" && (err != nil || out.FareGBP != 7):
			t.Errorf("declared %d, limit %d: %v, out %+v", tt.declared, tt.limit, err, out)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("declared %d, limit %d: error %v, want one saying %q", tt.declared, tt.limit, err, tt.wantErr)
		}
	}
}
