package brokenserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// Variant is one deliberate defect.
type Variant struct {
	// Name is a short identifier, e.g. "406-as-400".
	Name string
	// Defect says, in words, what a server with this variant gets wrong.
	Defect string
	// OAuth marks variants that only show on a server in OAuth mode.
	OAuth bool
	// MustFail lists texts of which at least one must appear in the full
	// name of a failing spec: the suite must fail, and for the right reason.
	MustFail []string
	// Request may edit the request before it is forwarded; returning true
	// answers with ex as it stands, without forwarding.
	Request func(ex *Exchange, opts Options) bool
	// Response may edit the upstream reply.
	Response func(ex *Exchange, opts Options)
}

// Variants returns every broken variant the self-test runs.
func Variants() []Variant {
	return append([]Variant{
		{
			Name: "406-as-400", Defect: "answers a bad Accept header with 400 instead of 406",
			MustFail: []string{"NOT_ACCEPTABLE", "not_acceptable.json"},
			Response: func(ex *Exchange, _ Options) {
				if ex.Status == http.StatusNotAcceptable {
					ex.Status = http.StatusBadRequest
				}
			},
		},
		{
			Name: "ignores-accept", Defect: "serves requests whatever their Accept header says",
			MustFail: []string{"NOT_ACCEPTABLE", "not_acceptable.json"},
			Request: func(ex *Exchange, _ Options) bool {
				ex.Request.Header.Set("Accept", "application/json, text/event-stream")
				return false
			},
		},
		{
			Name: "wildcard-accept-admits", Defect: "takes a wildcard Accept (*/*, what curl and fetch send by default) as naming both reply types",
			MustFail: []string{"NOT_ACCEPTABLE"},
			Request: func(ex *Exchange, _ Options) bool {
				if a := ex.Request.Header.Get("Accept"); strings.Contains(a, "*") {
					ex.Request.Header.Set("Accept", "application/json, text/event-stream")
				}
				return false
			},
		},
		{
			Name: "unknown-tool-as-invalid-params", Defect: "answers an unknown tool with -32602 instead of -32601",
			MustFail: []string{"METHOD_NOT_FOUND", "get_service_info.error.json"},
			Response: func(ex *Exchange, _ Options) {
				ex.editMessages(func(m map[string]any) {
					if e, ok := m["error"].(map[string]any); ok && e["code"] == float64(-32601) {
						e["code"] = -32602
					}
				})
			},
		},
		{
			Name: "geocode-error-says-routing-too", Defect: "words a GEOCODE_FAILED refusal so that it also carries ROUTING_UNAVAILABLE's signal, which clients read as retryable",
			MustFail: []string{"GEOCODE_FAILED", "estimate_fare.error.json"},
			Response: func(ex *Exchange, _ Options) {
				ex.editMessages(func(m map[string]any) {
					res, _ := m["result"].(map[string]any)
					if res == nil || res["isError"] != true {
						return
					}
					for _, c := range res["content"].([]any) {
						if item, ok := c.(map[string]any); ok {
							if t, _ := item["text"].(string); strings.Contains(t, "could not be geocoded") {
								item["text"] = t + " (the address lookup or routing service is temporarily unavailable)"
							}
						}
					}
				})
			},
		},
		{
			Name: "origin-unchecked", Defect: "serves calls from any browser Origin (no DNS-rebinding protection)",
			MustFail: []string{"FORBIDDEN_ORIGIN"},
			Request: func(ex *Exchange, _ Options) bool {
				ex.Request.Header.Del("Origin")
				return false
			},
		},
		{
			Name: "fare-off-by-a-penny", Defect: "quotes estimate_fare one penny too high",
			MustFail: []string{"estimate_fare.success.json"},
			Response: func(ex *Exchange, _ Options) {
				if tool, _ := ex.toolCall(); tool != "estimate_fare" {
					return
				}
				ex.editMessages(func(m map[string]any) {
					if sc := structured(m); sc != nil {
						if f, ok := sc["fareGBP"].(float64); ok {
							sc["fareGBP"] = math.Round(f*100+1) / 100
						}
					}
				})
			},
		},
		{
			Name: "missing-appliedRules", Defect: "omits structuredContent.appliedRules from estimate_fare",
			MustFail: []string{"estimate_fare"},
			Response: func(ex *Exchange, _ Options) {
				ex.editMessages(func(m map[string]any) {
					if sc := structured(m); sc != nil {
						delete(sc, "appliedRules")
					}
				})
			},
		},
		{
			Name: "extra-output-field", Defect: "adds a field the output schema does not allow",
			MustFail: []string{"structured output", ".success.json"},
			Response: func(ex *Exchange, _ Options) {
				ex.editMessages(func(m map[string]any) {
					if sc := structured(m); sc != nil {
						sc["surgeMultiplier"] = 1
					}
				})
			},
		},
		{
			Name: "booking-confirmed", Defect: "claims start_booking confirmed the booking",
			MustFail: []string{"start_booking"},
			Response: func(ex *Exchange, _ Options) {
				ex.editMessages(func(m map[string]any) {
					if sc := structured(m); sc != nil {
						if _, ok := sc["confirmed"]; ok {
							sc["confirmed"] = true
						}
					}
				})
			},
		},
		{
			Name: "text-disagrees", Defect: "states a different distance in the text than in structuredContent",
			MustFail: []string{"structured output", ".success.json"},
			Response: func(ex *Exchange, _ Options) {
				ex.editMessages(func(m map[string]any) {
					res, _ := m["result"].(map[string]any)
					if res == nil || res["isError"] == true {
						return
					}
					content, _ := res["content"].([]any)
					for _, c := range content {
						if item, ok := c.(map[string]any); ok {
							if t, ok := item["text"].(string); ok {
								item["text"] = strings.ReplaceAll(t, " miles", " km")
							}
						}
					}
				})
			},
		},
		{
			Name: "wrong-booking-host", Defect: "links start_booking to another site",
			MustFail: []string{"start_booking"},
			Response: func(ex *Exchange, _ Options) {
				ex.Body = bytes.ReplaceAll(ex.Body, []byte("tridenttaxis.online/book"), []byte("tridenttaxis.example/book"))
			},
		},
		{
			Name: "tools-list-schema-drift", Defect: "serves a pickup maxLength of 300 in tools/list",
			MustFail: []string{"tools/list"},
			Response: func(ex *Exchange, _ Options) {
				ex.editMessages(func(m map[string]any) {
					res, _ := m["result"].(map[string]any)
					tools, _ := res["tools"].([]any)
					for _, t := range tools {
						tool, _ := t.(map[string]any)
						in, _ := tool["inputSchema"].(map[string]any)
						props, _ := in["properties"].(map[string]any)
						if p, ok := props["pickup"].(map[string]any); ok {
							p["maxLength"] = 300
						}
					}
				})
			},
		},
		{
			Name: "list-tools-stale", Defect: "serves a /.mcp/list-tools catalogue that lacks the last tool of tools/list",
			MustFail: []string{"list-tools"},
			Response: func(ex *Exchange, _ Options) {
				if ex.Request.URL.Path != "/.mcp/list-tools" {
					return
				}
				ex.editMessages(func(m map[string]any) {
					if tools, _ := m["tools"].([]any); len(tools) > 0 {
						m["tools"] = tools[:len(tools)-1]
					}
				})
			},
		},
		{
			Name: "invalid-params-without-field", Defect: "words -32602 without naming the field",
			MustFail: []string{"INVALID_ARGUMENTS", "invalid_arguments.json", "generated arguments"},
			Response: func(ex *Exchange, _ Options) {
				ex.editMessages(func(m map[string]any) {
					if e, ok := m["error"].(map[string]any); ok && e["code"] == float64(-32602) {
						e["message"] = "Invalid params"
					}
				})
			},
		},
		{
			Name: "accepts-non-integer-passengers", Defect: "rounds a fractional passenger count instead of refusing it",
			MustFail: []string{"passengers not_integer", "generated arguments"},
			Request: func(ex *Exchange, _ Options) bool {
				ex.editRequest(func(m map[string]any) {
					params, _ := m["params"].(map[string]any)
					args, _ := params["arguments"].(map[string]any)
					if p, ok := args["passengers"].(float64); ok && p != math.Trunc(p) {
						args["passengers"] = math.Floor(p)
					}
				})
				return false
			},
		},
		{
			Name: "lenient-enum", Defect: "treats an unknown vehicleType as saloon",
			MustFail: []string{"bad_enum", "generated arguments"},
			Request: func(ex *Exchange, _ Options) bool {
				ex.editRequest(func(m map[string]any) {
					params, _ := m["params"].(map[string]any)
					args, _ := params["arguments"].(map[string]any)
					if v, ok := args["vehicleType"].(string); ok {
						switch v {
						case "saloon", "estate", "executive", "luxury", "5seater", "6seater", "7seater", "mpv", "wav":
						default:
							args["vehicleType"] = "saloon"
						}
					}
				})
				return false
			},
		},
		{
			Name: "geocodes-before-capacity", Defect: "geocodes the addresses before checking capacity",
			MustFail: []string{"CAPACITY_EXCEEDED"},
			Request: func(ex *Exchange, opts Options) bool {
				tool, args := ex.toolCall()
				if tool != "start_booking" || args["passengers"] == nil {
					return false
				}
				// Ask the upstream the same question without passengers: if
				// that fails geocoding, a server that geocodes first answers so.
				probe := *ex
				probe.editRequest(func(m map[string]any) {
					params, _ := m["params"].(map[string]any)
					a, _ := params["arguments"].(map[string]any)
					delete(a, "passengers")
					delete(params, "_meta")
				})
				hc := &http.Client{}
				req, _ := http.NewRequestWithContext(ex.Request.Context(), http.MethodPost, upstreamOf(ex), bytes.NewReader(probe.RequestBody))
				req.Header = ex.Request.Header.Clone()
				resp, err := hc.Do(req)
				if err != nil {
					return false
				}
				defer resp.Body.Close()
				var out bytes.Buffer
				out.ReadFrom(resp.Body)
				if bytes.Contains(out.Bytes(), []byte("could not be geocoded")) {
					ex.Status, ex.Header, ex.Body = resp.StatusCode, resp.Header.Clone(), out.Bytes()
					return true
				}
				return false
			},
		},
		{
			Name: "parse-error-200", Defect: "answers a parse error with HTTP 200",
			MustFail: []string{"PARSE_ERROR"},
			Response: func(ex *Exchange, _ Options) {
				if bytes.Contains(ex.Body, []byte("-32700")) {
					ex.Status = http.StatusOK
				}
			},
		},
		{
			Name: "error-without-null-id", Defect: "drops the id member from errors that must carry id null",
			MustFail: []string{"NOT_ACCEPTABLE", "PARSE_ERROR", "not_acceptable.json"},
			Response: func(ex *Exchange, _ Options) {
				ex.editMessages(func(m map[string]any) {
					if id, ok := m["id"]; ok && id == nil && m["error"] != nil {
						delete(m, "id")
					}
				})
			},
		},
		{
			Name: "ignores-protocol-version", Defect: "serves a request whose MCP-Protocol-Version it does not support",
			MustFail: []string{"UNSUPPORTED_PROTOCOL_VERSION"},
			Request: func(ex *Exchange, _ Options) bool {
				if v := ex.Request.Header.Get("MCP-Protocol-Version"); v != "" && v != "2025-06-18" {
					ex.Request.Header.Del("MCP-Protocol-Version")
				}
				return false
			},
		},
		{
			Name: "session-required", Defect: "refuses calls that did not initialize a session first",
			MustFail: []string{"stateless"},
			Request: func(ex *Exchange, _ Options) bool {
				if ex.Request.Header.Get("Mcp-Session-Id") != "" || bytes.Contains(ex.RequestBody, []byte(`"initialize"`)) {
					return false
				}
				ex.Status, ex.Header = http.StatusBadRequest, http.Header{"Content-Type": {"application/json"}}
				ex.Body = []byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: missing session"}}`)
				return true
			},
		},
		{
			Name: "notification-answered-200", Defect: "answers a notification with 200 and a body instead of 202",
			MustFail: []string{"notification"},
			Response: func(ex *Exchange, _ Options) {
				if ex.Status == http.StatusAccepted {
					ex.Status = http.StatusOK
					ex.Header.Set("Content-Type", "application/json")
					ex.Body = []byte(`{}`)
				}
			},
		},
		{
			Name: "progress-after-final", Defect: "sends progress frames after the final frame",
			MustFail: []string{"SSE progress streaming"},
			Response: func(ex *Exchange, _ Options) {
				if !ex.isSSE() {
					return
				}
				fs := splitFrames(ex.Body)
				var progress, rest []frame
				for _, f := range fs {
					if f.msg != nil && f.msg["method"] == "notifications/progress" {
						progress = append(progress, f)
					} else {
						rest = append(rest, f)
					}
				}
				ex.Body = joinFrames(append(rest, progress...))
			},
		},
		{
			Name: "no-progress-frames", Defect: "streams the result without any progress notification",
			MustFail: []string{"SSE progress streaming"},
			Response: func(ex *Exchange, _ Options) {
				if !ex.isSSE() {
					return
				}
				var keep []frame
				for _, f := range splitFrames(ex.Body) {
					if f.msg == nil || f.msg["method"] != "notifications/progress" {
						keep = append(keep, f)
					}
				}
				ex.Body = joinFrames(keep)
			},
		},
		{
			Name: "final-frame-wrong-id", Defect: "gives the streamed final frame another id",
			MustFail: []string{"SSE progress streaming"},
			Response: func(ex *Exchange, _ Options) {
				if !ex.isSSE() {
					return
				}
				fs := splitFrames(ex.Body)
				for i := range fs {
					if fs[i].msg != nil && fs[i].msg["result"] != nil {
						fs[i].msg["id"] = "not-the-request-id"
					}
				}
				ex.Body = joinFrames(fs)
			},
		},
		{
			Name: "sse-unterminated", Defect: "ends the event stream without the blank line that dispatches the last event",
			MustFail: []string{"SSE progress streaming"},
			Response: func(ex *Exchange, _ Options) {
				if ex.isSSE() {
					ex.Body = bytes.TrimRight(ex.Body, "\n")
					ex.Body = append(ex.Body, '\n')
				}
			},
		},
		{
			Name: "ignores-progress-token", Defect: "never streams: answers JSON even with a progressToken",
			MustFail: []string{"SSE progress streaming"},
			Request: func(ex *Exchange, _ Options) bool {
				ex.editRequest(func(m map[string]any) {
					if params, ok := m["params"].(map[string]any); ok {
						delete(params, "_meta")
					}
				})
				return false
			},
		},
		{
			Name: "401-without-resource-metadata", Defect: "omits resource_metadata from WWW-Authenticate", OAuth: true,
			MustFail: []string{"UNAUTHORIZED", "unauthorized.json"},
			Response: func(ex *Exchange, _ Options) {
				if h := ex.Header.Get("WWW-Authenticate"); h != "" {
					h = regexp.MustCompile(`,?\s*resource_metadata="[^"]*"`).ReplaceAllString(h, "")
					ex.Header.Set("WWW-Authenticate", h)
				}
			},
		},
		{
			Name: "401-body-without-32001", Defect: "answers 401 with a JSON-RPC error code other than -32001", OAuth: true,
			MustFail: []string{"UNAUTHORIZED", "unauthorized.json"},
			Response: func(ex *Exchange, _ Options) {
				if ex.Status == http.StatusUnauthorized {
					ex.Body = bytes.ReplaceAll(ex.Body, []byte("-32001"), []byte("-32000"))
				}
			},
		},
		{
			Name: "accepts-foreign-signature", Defect: "does not verify token signatures", OAuth: true,
			MustFail: []string{"foreign key", "tampered payload"},
			Request: func(ex *Exchange, opts Options) bool {
				tok := bearer(ex.Request)
				if tok != "" && tok != opts.ValidToken && strings.Count(tok, ".") == 2 && !expired(tok) {
					ex.Request.Header.Set("Authorization", "Bearer "+opts.ValidToken)
				}
				return false
			},
		},
		{
			Name: "accepts-expired-token", Defect: "does not check exp", OAuth: true,
			MustFail: []string{"expired token"},
			Request: func(ex *Exchange, opts Options) bool {
				if tok := bearer(ex.Request); tok != "" && expired(tok) {
					ex.Request.Header.Set("Authorization", "Bearer "+opts.ValidToken)
				}
				return false
			},
		},
		{
			Name: "issuer-with-trailing-slash", Defect: "advertises its authorization server with a trailing slash, which is not the issuer's identifier (RFC 8414 section 3.3)", OAuth: true,
			MustFail: []string{"RFC 8414"},
			Response: func(ex *Exchange, _ Options) {
				if !strings.HasPrefix(ex.Request.URL.Path, "/.well-known/oauth-protected-resource") {
					return
				}
				ex.editMessages(func(m map[string]any) {
					servers, _ := m["authorization_servers"].([]any)
					for i, s := range servers {
						if str, ok := s.(string); ok {
							servers[i] = str + "/"
						}
					}
				})
			},
		},
		{
			Name: "accepts-query-token", Defect: "accepts an access_token in the query string", OAuth: true,
			MustFail: []string{"query string"},
			Request: func(ex *Exchange, opts Options) bool {
				// The server such a variant models takes the token from the
				// query: upstream, that is a valid header and no query token
				// (the real server refuses any request naming access_token).
				q := ex.Request.URL.Query()
				if q.Get("access_token") != "" {
					q.Del("access_token")
					ex.Request.URL.RawQuery = q.Encode()
					ex.Request.Header.Set("Authorization", "Bearer "+opts.ValidToken)
				}
				return false
			},
		},
	}, append(fareVariants(), ridesVariants()...)...)
}

// upstreamOf is the upstream URL of the request, for faults that probe it.
func upstreamOf(ex *Exchange) string { return ex.Upstream + ex.Request.URL.RequestURI() }

func bearer(r *http.Request) string {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return tok
}

func expired(tok string) bool {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return false
	}
	var c struct {
		Exp float64 `json:"exp"`
	}
	if json.Unmarshal(b, &c) != nil || c.Exp == 0 {
		return false
	}
	return time.Unix(int64(c.Exp), 0).Before(time.Now())
}
