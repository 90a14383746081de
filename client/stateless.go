package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
)

// Result types of the stateless revisions. A result without one is
// complete, as a server of an older revision sends it.
const (
	resultComplete      = "complete"
	resultInputRequired = "input_required"
)

// maxInputRounds bounds the rounds of one multi round-trip request: a
// server that keeps asking for input is given up on, not followed forever.
const maxInputRounds = 10

// doStateless runs one call of the stateless revisions (2026-07-28): no
// initialize and no session; every request carries its revision, client
// info and capabilities in params._meta, its method and name (and a tool's
// x-mcp-header arguments) in headers. A result that asks for input
// (resultType "input_required", SEP-2322) is answered and the request sent
// again with a new id, the answers in inputResponses and the server's
// requestState echoed unchanged; the state of one request never reaches
// another.
func (c *Client) doStateless(ctx context.Context, s *settings, v, method string, params, result any) error {
	p, err := paramsObject(method, params)
	if err != nil {
		return err
	}
	for round, next := 1, p; ; round++ {
		var res json.RawMessage
		if err := c.exchangeStateless(ctx, s, v, method, next, &res); err != nil {
			return err
		}
		var kind struct {
			ResultType    string                     `json:"resultType"`
			InputRequests map[string]json.RawMessage `json:"inputRequests"`
			RequestState  json.RawMessage            `json:"requestState"`
		}
		if err := json.Unmarshal(res, &kind); err != nil {
			return fmt.Errorf("client: %s: decoding result: %w", method, err)
		}
		switch kind.ResultType {
		case "", resultComplete:
			return decodeResult(method, res, result)
		case resultInputRequired:
		default:
			return fmt.Errorf("client: %s: result type %q is not one the client handles", method, kind.ResultType)
		}
		if round == maxInputRounds {
			return fmt.Errorf("client: %s: the server still asks for input after %d rounds", method, round)
		}
		answers, err := c.fulfil(ctx, s, method, kind.InputRequests)
		if err != nil {
			return err
		}
		next = maps.Clone(p)
		if answers != nil {
			b, err := json.Marshal(answers)
			if err != nil {
				return fmt.Errorf("client: %s: encoding inputResponses: %w", method, err)
			}
			next["inputResponses"] = b
		}
		if len(kind.RequestState) > 0 {
			next["requestState"] = kind.RequestState // opaque: echoed byte for byte
		}
	}
}

// exchangeStateless sends one request of the stateless revisions (its own
// id, kept across retries of the same request) and decodes its result into
// out. A JSON-RPC error that a stateless server sends with 400 (invalid
// params -32602, a refused revision -32022, headers that do not match the
// body) or 404 (an unknown method, -32601) is returned as the
// [*RPCError] it is; other statuses stay [*TransportError]s, since there
// the status is the news (401, 406, 429, 5xx).
func (c *Client) exchangeStateless(ctx context.Context, s *settings, v, method string, p map[string]json.RawMessage, out any) error {
	id := c.newID()
	var token json.RawMessage
	if s.progress != nil {
		token, _ = json.Marshal(string(id))
	}
	params, err := withMeta(p, s.meta(v, token))
	if err != nil {
		return fmt.Errorf("client: %s: encoding params: %w", method, err)
	}
	body, err := json.Marshal(request{JSONRPC: "2.0", ID: id, Method: method, Params: params})
	if err != nil {
		return fmt.Errorf("client: %s: encoding params: %w", method, err)
	}
	f, err := c.send(ctx, s, method, id, body, c.statelessHeaders(v, method, p), nil, nil)
	if err != nil {
		var tr *TransportError
		if errors.As(err, &tr) && tr.RPC != nil && (tr.StatusCode == http.StatusBadRequest || tr.StatusCode == http.StatusNotFound) {
			return tr.RPC
		}
		return err
	}
	return decodeResult(method, f.Result, out)
}

// paramsObject reads params (any JSON-encodable value; nil is {}) as the
// JSON object a request's params must be.
func paramsObject(method string, params any) (map[string]json.RawMessage, error) {
	p := map[string]json.RawMessage{}
	if params == nil {
		return p, nil
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("client: %s: encoding params: %w", method, err)
	}
	if string(b) == "null" {
		return p, nil
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("client: %s: params must encode as a JSON object: %w", method, err)
	}
	return p, nil
}

// withMeta returns p with meta's keys added to its _meta; keys the caller
// put there already are kept as they are.
func withMeta(p map[string]json.RawMessage, meta *requestMeta) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(p)+1)
	maps.Copy(out, p)
	raw, ok := p["_meta"]
	if !ok || string(raw) == "null" {
		b, err := json.Marshal(meta)
		if err != nil {
			return nil, err
		}
		out["_meta"] = b
		return out, nil
	}
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("_meta must be a JSON object: %w", err)
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	var ours map[string]json.RawMessage
	if err := json.Unmarshal(b, &ours); err != nil {
		return nil, err
	}
	for k, v := range ours {
		if _, taken := m[k]; !taken {
			m[k] = v
		}
	}
	if out["_meta"], err = json.Marshal(m); err != nil {
		return nil, err
	}
	return out, nil
}

// requestMeta is the _meta every stateless request carries: its revision,
// the client's name and capabilities, and the progress token when the call
// streams progress.
type requestMeta struct {
	ProtocolVersion    string          `json:"io.modelcontextprotocol/protocolVersion"`
	ClientInfo         Implementation  `json:"io.modelcontextprotocol/clientInfo"`
	ClientCapabilities map[string]any  `json:"io.modelcontextprotocol/clientCapabilities"`
	ProgressToken      json.RawMessage `json:"progressToken,omitempty"`
}

// meta is the requestMeta of a request in revision v.
func (s *settings) meta(v string, progressToken json.RawMessage) *requestMeta {
	return &requestMeta{
		ProtocolVersion:    v,
		ClientInfo:         Implementation{Name: s.clientName, Version: s.clientVersion},
		ClientCapabilities: s.statelessCapabilities(),
		ProgressToken:      progressToken,
	}
}

// statelessCapabilities are the capabilities a stateless request declares:
// form elicitation when [WithElicitation] is set, which the server then
// asks for in an input_required result.
func (s *settings) statelessCapabilities() map[string]any {
	caps := map[string]any{}
	if s.elicit != nil {
		caps["elicitation"] = map[string]any{"form": map[string]any{}}
	}
	return caps
}

// statelessHeaders are the headers SEP-2243 has a stateless POST mirror
// from its body, for intermediaries that route without reading it:
// MCP-Protocol-Version, Mcp-Method, Mcp-Name for the methods that name
// something (a tool, a prompt, a resource), and a tools/call's Mcp-Param-*
// headers for the arguments its tool's inputSchema marks with
// x-mcp-header (known from the last tools/list; a tool never listed sends
// none).
func (c *Client) statelessHeaders(v, method string, p map[string]json.RawMessage) http.Header {
	h := http.Header{}
	h.Set("Mcp-Protocol-Version", v)
	h.Set("Mcp-Method", method)
	field := "name"
	switch method {
	case MethodToolsCall, MethodPromptsGet:
	case MethodResourcesRead:
		field = "uri"
	default:
		return h
	}
	var name string
	if json.Unmarshal(p[field], &name) != nil || name == "" {
		return h
	}
	h.Set("Mcp-Name", name)
	if method == MethodToolsCall {
		for k, val := range c.tools.paramHeaders(name, p["arguments"]) {
			h.Set(k, val)
		}
	}
	return h
}

// fulfil answers the input requests of an input_required result, in the
// order of their keys: elicitation/create with the [WithElicitation]
// handler. Anything else (sampling, roots, elicitation without a handler)
// the client does not declare, so a server asking for it is answered with
// an error that names it.
func (c *Client) fulfil(ctx context.Context, s *settings, method string, reqs map[string]json.RawMessage) (map[string]any, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	out := make(map[string]any, len(reqs))
	for _, key := range slices.Sorted(maps.Keys(reqs)) {
		var ir struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(reqs[key], &ir); err != nil {
			return nil, fmt.Errorf("client: %s: input request %q: %w", method, key, err)
		}
		if ir.Method != MethodElicit || s.elicit == nil {
			return nil, fmt.Errorf("client: %s: the server asks for %s (input %q), which the client does not answer", method, ir.Method, key)
		}
		res, rerr := elicit(ctx, s, ir.Params)
		if rerr != nil {
			return nil, fmt.Errorf("client: %s: answering input %q (%s): %s", method, key, ir.Method, rerr.Message)
		}
		out[key] = res
	}
	return out, nil
}
