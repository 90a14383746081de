package brokenserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// Exchange is the buffered request and response the faults edit. The proxy
// reads the upstream reply completely (a test server's replies are small and
// finite), so a fault can reorder SSE frames or rewrite a JSON body freely.
type Exchange struct {
	// Upstream is the proxied server's scheme://host.
	Upstream    string
	Request     *http.Request
	RequestBody []byte
	Status      int
	Header      http.Header
	Body        []byte

	// departAt is the request's departAt as the client sent it, and sent
	// what a pricing fault forwarded instead ("" when removed or unchanged).
	departAt, sent string
}

// Options are what some faults need to know.
type Options struct {
	// ValidToken is an access token the upstream accepts; the faults that
	// model a server skipping a token check swap it in.
	ValidToken string
}

// Proxy returns a handler that forwards every request to target (scheme://host)
// and applies v's defect on the way in or out. The zero Variant is the
// identity proxy.
func Proxy(target string, v Variant, opts Options) http.Handler {
	target = strings.TrimRight(target, "/")
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "brokenserver: reading the request: "+err.Error(), http.StatusBadGateway)
			return
		}
		ex := &Exchange{Upstream: target, Request: r, RequestBody: body}
		if v.Request != nil {
			if done := v.Request(ex, opts); done {
				writeOut(w, ex)
				return
			}
		}
		if err := forward(hc, target, ex); err != nil {
			http.Error(w, "brokenserver: "+err.Error(), http.StatusBadGateway)
			return
		}
		if v.Response != nil {
			v.Response(ex, opts)
		}
		writeOut(w, ex)
	})
}

func forward(hc *http.Client, target string, ex *Exchange) error {
	r := ex.Request
	req, err := http.NewRequestWithContext(r.Context(), r.Method, target+r.URL.RequestURI(), bytes.NewReader(ex.RequestBody))
	if err != nil {
		return err
	}
	req.Header = r.Header.Clone()
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	ex.Body, err = io.ReadAll(resp.Body)
	ex.Status, ex.Header = resp.StatusCode, resp.Header.Clone()
	return err
}

func writeOut(w http.ResponseWriter, ex *Exchange) {
	for k, vs := range ex.Header {
		if strings.EqualFold(k, "Content-Length") {
			continue
		}
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if ex.Status == 0 {
		ex.Status = http.StatusOK
	}
	w.WriteHeader(ex.Status)
	w.Write(ex.Body)
}

// isSSE says whether the reply is an event stream.
func (ex *Exchange) isSSE() bool {
	return strings.HasPrefix(ex.Header.Get("Content-Type"), "text/event-stream")
}

// frame is one SSE event as the proxy sees it: its raw lines and, when its
// data is a JSON object, the decoded message.
type frame struct {
	lines []string
	msg   map[string]any
}

// frames splits an SSE body into events. It is deliberately simple (LF line
// ends, one data line per event, as MCP servers send) and independent of the
// suite's parser, so that a bug there cannot hide here.
func splitFrames(body []byte) []frame {
	var out []frame
	for _, block := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n\n") {
		if strings.TrimSpace(block) == "" {
			continue
		}
		f := frame{lines: strings.Split(block, "\n")}
		for _, l := range f.lines {
			if d, ok := strings.CutPrefix(l, "data:"); ok {
				_ = json.Unmarshal([]byte(strings.TrimSpace(d)), &f.msg)
			}
		}
		out = append(out, f)
	}
	return out
}

func joinFrames(fs []frame) []byte {
	var b strings.Builder
	for _, f := range fs {
		for _, l := range f.lines {
			if strings.HasPrefix(l, "data:") && f.msg != nil {
				m, _ := json.Marshal(f.msg)
				l = "data: " + string(m)
			}
			b.WriteString(l + "\n")
		}
		b.WriteString("\n")
	}
	return []byte(b.String())
}

// editMessages applies f to every JSON-RPC message of the reply, whether the
// reply is one JSON body or an event stream.
func (ex *Exchange) editMessages(f func(m map[string]any)) {
	if ex.isSSE() {
		fs := splitFrames(ex.Body)
		for i := range fs {
			if fs[i].msg != nil {
				f(fs[i].msg)
			}
		}
		ex.Body = joinFrames(fs)
		return
	}
	var m map[string]any
	if json.Unmarshal(ex.Body, &m) != nil {
		return
	}
	f(m)
	ex.Body, _ = json.Marshal(m)
}

// editRequest applies f to the decoded JSON-RPC request body.
func (ex *Exchange) editRequest(f func(m map[string]any)) {
	var m map[string]any
	if json.Unmarshal(ex.RequestBody, &m) != nil {
		return
	}
	f(m)
	ex.RequestBody, _ = json.Marshal(m)
}

// requestParams returns params.name and params.arguments of a tools/call.
func (ex *Exchange) toolCall() (string, map[string]any) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(ex.RequestBody, &m) != nil || m.Method != "tools/call" {
		return "", nil
	}
	return m.Params.Name, m.Params.Arguments
}

// structured returns result.structuredContent of a message, if any.
func structured(m map[string]any) map[string]any {
	res, _ := m["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	return sc
}
