package fake

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/tridenttaxis/trident-mcp/contracts"
)

// Options configures the fake. The zero value is a public server whose links
// point at https://tridenttaxis.online.
type Options struct {
	// PublicBaseURL is the base of resource_metadata; empty means the
	// request's own scheme://host.
	PublicBaseURL string
	// BookingBaseURL is the base of start_booking links; empty means
	// https://tridenttaxis.online.
	BookingBaseURL string
	// RoutingDown makes every route fail with ROUTING_UNAVAILABLE.
	RoutingDown bool
	// OAuthKey, when set, turns on OAuth mode: tokens must be ES256-signed by
	// this key, with iss == OAuthIssuer, aud containing "authenticated", a
	// future exp, a sub and a client_id.
	OAuthKey    *ecdsa.PublicKey
	OAuthIssuer string
	// Resource is the RFC 9728 resource; empty means PublicBaseURL + "/mcp".
	Resource string
}

// Handler returns the fake's HTTP handler (/mcp, /healthz and the RFC 9728
// metadata).
func Handler(opts Options) (http.Handler, error) {
	m, err := contracts.LoadManifest()
	if err != nil {
		return nil, err
	}
	s := &server{opts: opts, manifest: m, inputs: map[string]*schema{}, raw: map[string][2]json.RawMessage{}}
	if s.opts.BookingBaseURL == "" {
		s.opts.BookingBaseURL = "https://tridenttaxis.online"
	}
	for _, t := range m.Tools {
		in, err := t.Input()
		if err != nil {
			return nil, err
		}
		out, err := t.Output()
		if err != nil {
			return nil, err
		}
		var sc schema
		if err := json.Unmarshal(in, &sc); err != nil {
			return nil, err
		}
		s.inputs[t.Name], s.raw[t.Name] = &sc, [2]json.RawMessage{in, out}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /mcp", s.mcp)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("GET /.well-known/oauth-protected-resource", s.resourceMetadata)
	return mux, nil
}

type schema struct {
	Properties map[string]*struct {
		Type      string   `json:"type"`
		Enum      []string `json:"enum"`
		MinLength *int     `json:"minLength"`
		MaxLength *int     `json:"maxLength"`
		Minimum   *float64 `json:"minimum"`
		Maximum   *float64 `json:"maximum"`
		Format    string   `json:"format"`
	} `json:"properties"`
	Required []string `json:"required"`
}

type server struct {
	opts     Options
	manifest *contracts.Manifest
	inputs   map[string]*schema
	raw      map[string][2]json.RawMessage
}

func (s *server) base(r *http.Request) string {
	if s.opts.PublicBaseURL != "" {
		return s.opts.PublicBaseURL
	}
	return "http://" + r.Host
}

func (s *server) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	res := s.opts.Resource
	if res == "" {
		res = s.base(r) + "/mcp"
	}
	writeJSON(w, 200, map[string]any{
		"resource": res, "authorization_servers": []string{s.opts.OAuthIssuer},
		"bearer_methods_supported": []string{"header"}, "resource_documentation": s.base(r) + "/mcp-docs",
	})
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func errorBody(id json.RawMessage, code int, msg string) map[string]any {
	if id == nil {
		id = json.RawMessage("null")
	}
	return map[string]any{"jsonrpc": "2.0", "id": id, "error": rpcError{code, msg}}
}

func (s *server) mcp(w http.ResponseWriter, r *http.Request) {
	if s.opts.OAuthKey != nil && !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="mcp", error="invalid_token", error_description="Missing or invalid access token", resource_metadata="%s/.well-known/oauth-protected-resource"`, s.base(r)))
		writeJSON(w, 401, errorBody(nil, -32001, "Unauthorized: bearer token is missing, expired, or failed verification"))
		return
	}
	if !acceptsBoth(r.Header.Values("Accept")) {
		writeJSON(w, 406, errorBody(nil, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream"))
		return
	}
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && v != "2025-06-18" && v != "2025-03-26" && v != "2024-11-05" {
		writeJSON(w, 400, errorBody(nil, -32600, "Bad Request: Unsupported protocol version: "+v))
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(body, &msg); err != nil {
		var anyJSON any
		if json.Unmarshal(body, &anyJSON) == nil {
			writeJSON(w, 400, errorBody(nil, -32600, "Invalid Request: not a JSON-RPC object"))
			return
		}
		writeJSON(w, 400, errorBody(nil, -32700, "Parse error: "+err.Error()))
		return
	}
	id, hasID := msg["id"]
	if hasID && !validID(id) {
		writeJSON(w, 400, errorBody(nil, -32600, "Invalid Request: id must be a string, a number or null"))
		return
	}
	var method string
	if string(msg["jsonrpc"]) != `"2.0"` || json.Unmarshal(msg["method"], &method) != nil || method == "" {
		writeJSON(w, 400, errorBody(nil, -32600, "Invalid Request: want jsonrpc \"2.0\" and a method"))
		return
	}
	if !hasID {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	var params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(msg["params"], &params)
	reply := func(result any) map[string]any { return map[string]any{"jsonrpc": "2.0", "id": id, "result": result} }
	switch method {
	case "initialize":
		writeJSON(w, 200, reply(map[string]any{
			"protocolVersion": s.manifest.Server.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
			"serverInfo":      map[string]any{"name": s.manifest.Server.Name, "version": s.manifest.Server.Version},
		}))
	case "ping":
		writeJSON(w, 200, reply(map[string]any{}))
	case "tools/list":
		var tools []map[string]any
		for _, t := range s.manifest.Tools {
			tools = append(tools, map[string]any{
				"name": t.Name, "title": t.Title, "description": t.Description, "annotations": t.Annotations,
				"inputSchema": s.raw[t.Name][0], "outputSchema": s.raw[t.Name][1],
			})
		}
		writeJSON(w, 200, reply(map[string]any{"tools": tools}))
	case "tools/call":
		in, ok := s.inputs[params.Name]
		if !ok {
			writeJSON(w, 200, errorBody(id, -32601, fmt.Sprintf("Method not found: no tool named '%s'", params.Name)))
			return
		}
		var args map[string]any
		if len(params.Arguments) > 0 && json.Unmarshal(params.Arguments, &args) != nil {
			writeJSON(w, 200, errorBody(id, -32602, "Invalid params: arguments: Expected object"))
			return
		}
		if msg := validate(in, args); msg != "" {
			writeJSON(w, 200, errorBody(id, -32602, "Invalid params: "+msg))
			return
		}
		result := s.call(params.Name, args)
		if params.Meta.ProgressToken == nil {
			writeJSON(w, 200, reply(result))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for i, step := range []string{"Validating arguments", "Geocoding", "Routing"} {
			frame, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
				"params": map[string]any{"progressToken": params.Meta.ProgressToken, "progress": i + 1, "total": 4, "message": step}})
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", frame)
		}
		frame, _ := json.Marshal(reply(result))
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", frame)
	default:
		writeJSON(w, 200, errorBody(id, -32601, "Method not found: "+method))
	}
}

func validID(id json.RawMessage) bool {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64, nil:
		return true
	}
	return false
}

// acceptsBoth says whether the Accept values name application/json and
// text/event-stream (or wildcards covering them).
func acceptsBoth(values []string) bool {
	var j, e bool
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			j = j || mt == "application/json" || mt == "application/*" || mt == "*/*"
			e = e || mt == "text/event-stream" || mt == "text/*" || mt == "*/*"
		}
	}
	return j && e
}

func (s *server) authorized(r *http.Request) bool {
	scheme, raw, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	tok, err := jwt.ParseSigned(raw, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return false
	}
	var c struct {
		jwt.Claims
		ClientID string `json:"client_id"`
	}
	if err := tok.Claims(s.opts.OAuthKey, &c); err != nil {
		return false
	}
	return c.Issuer == s.opts.OAuthIssuer && slices.Contains([]string(c.Audience), "authenticated") &&
		c.Expiry != nil && c.Expiry.Time().After(time.Now()) && c.Subject != "" && c.ClientID != ""
}

// validate checks args the way a Zod v3 object schema would and returns
// "<field>: <reason>" for the first issue, or "".
func validate(s *schema, args map[string]any) string {
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		p := s.Properties[name]
		v, present := args[name]
		if !present {
			if slices.Contains(s.Required, name) {
				return name + ": Required"
			}
			continue
		}
		got := zodType(v)
		switch p.Type {
		case "string":
			str, ok := v.(string)
			if !ok {
				exp := "string"
				if len(p.Enum) > 0 {
					exp = "'" + strings.Join(p.Enum, "' | '") + "'"
				}
				return fmt.Sprintf("%s: Expected %s, received %s", name, exp, got)
			}
			n := len([]rune(str))
			switch {
			case p.MinLength != nil && n < *p.MinLength:
				return fmt.Sprintf("%s: String must contain at least %d character(s)", name, *p.MinLength)
			case p.MaxLength != nil && n > *p.MaxLength:
				return fmt.Sprintf("%s: String must contain at most %d character(s)", name, *p.MaxLength)
			case len(p.Enum) > 0 && !slices.Contains(p.Enum, str):
				return fmt.Sprintf("%s: Invalid enum value. Expected '%s', received '%s'", name, strings.Join(p.Enum, "' | '"), str)
			case p.Format == "date-time":
				if _, err := time.Parse(time.RFC3339Nano, str); err != nil || !strings.HasSuffix(str, "Z") {
					return name + ": Invalid datetime"
				}
			}
		case "integer":
			f, ok := v.(float64)
			if !ok {
				return fmt.Sprintf("%s: Expected number, received %s", name, got)
			}
			switch {
			case f != math.Trunc(f):
				return name + ": Expected integer, received float"
			case p.Minimum != nil && f < *p.Minimum:
				return fmt.Sprintf("%s: Number must be greater than or equal to %v", name, *p.Minimum)
			case p.Maximum != nil && f > *p.Maximum:
				return fmt.Sprintf("%s: Number must be less than or equal to %v", name, *p.Maximum)
			}
		case "boolean":
			if _, ok := v.(bool); !ok {
				return fmt.Sprintf("%s: Expected boolean, received %s", name, got)
			}
		}
	}
	return ""
}

func zodType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	}
	return "object"
}

type place struct {
	lat, lon float64
	airport  bool
}

var places = map[string]place{
	"helensburgh central station": {56.0041, -4.7335, false},
	"helensburgh":                 {56.0034, -4.7330, false},
	"glasgow airport":             {55.8719, -4.4331, true},
	"balloch":                     {56.0030, -4.5830, false},
	"dumbarton":                   {55.9433, -4.5692, false},
	"glasgow central station":     {55.8590, -4.2580, false},
	"edinburgh airport":           {55.9500, -3.3725, true},
	"cardross":                    {55.9630, -4.6510, false},
	"rhu":                         {56.0160, -4.7830, false},
}

var capacity = map[string]int{"saloon": 4, "mpv": 7, "wav": 4}

func toolError(text string) map[string]any {
	return map[string]any{"isError": true, "content": []map[string]any{{"type": "text", "text": text}}}
}

func (s *server) call(tool string, args map[string]any) map[string]any {
	verb := map[string]string{"estimate_fare": "Could not estimate fare", "start_booking": "Could not start booking"}[tool]
	if tool == "get_service_info" {
		sc := map[string]any{
			"brand": "Trident Taxis", "area": "Helensburgh, Lomond, Argyll & Bute (UK)",
			"vehicles":   []map[string]any{{"id": "saloon", "maxPassengers": 4}, {"id": "mpv", "maxPassengers": 7, "note": "8-seater; +100% on local hires"}},
			"surcharges": map[string]any{"preBookingGBP": 0.4, "airportPickupOrDropGBP": 10, "airportMeetAndGreetGBP": 25, "eightSeaterLocalMultiplier": 2},
			"tariffs":    []string{"T1 day", "T2 night/evening", "T3 Christmas & New Year"},
			"bookingUrl": s.opts.BookingBaseURL,
		}
		return map[string]any{"content": []map[string]any{{"type": "text", "text": "Trident Taxis · Helensburgh, Lomond, Argyll & Bute (UK)"}}, "structuredContent": sc}
	}
	vehicle, _ := args["vehicleType"].(string)
	if vehicle == "" {
		vehicle = "saloon"
	}
	if n, ok := args["passengers"].(float64); ok && tool == "start_booking" && int(n) > capacity[vehicle] {
		advice := "Choose 'mpv' for groups over 4."
		if vehicle == "mpv" {
			advice = "Larger groups need more than one vehicle."
		}
		return toolError(fmt.Sprintf("Vehicle '%s' seats up to %d passengers, but %d were requested. %s", vehicle, capacity[vehicle], int(n), advice))
	}
	pickup, dropoff := args["pickup"].(string), args["dropoff"].(string)
	a, okA := places[strings.ToLower(strings.TrimSpace(pickup))]
	b, okB := places[strings.ToLower(strings.TrimSpace(dropoff))]
	if !okA || !okB {
		return toolError(verb + " — address could not be geocoded or the routing service is unavailable.")
	}
	if s.opts.RoutingDown {
		return toolError(verb + " — the routing service is temporarily unavailable. Retry with backoff.")
	}
	miles := math.Round(haversineMiles(a, b) * 1.49)
	if miles < 1 {
		miles = 1
	}
	seconds := miles * 90
	// A toy tariff fitted to the samples: 22 miles is £41.50 in a saloon.
	pence := math.Round(4150 * miles / 22)
	var rules []string
	switch vehicle {
	case "executive", "luxury":
		pence, rules = math.Round(pence*1.2627), append(rules, "Executive rate applied")
	case "mpv", "7seater", "6seater", "5seater":
		pence, rules = pence*2, append(rules, "8-seater rate applied")
	}
	airport := 0.0
	if a.airport || b.airport {
		pence, airport, rules = pence+1000, 10, append(rules, "Airport pickup/drop fee +£10")
	}
	mg, _ := args["meetAndGreet"].(bool)
	if mg {
		pence, rules = pence+2500, append(rules, "Meet & greet +£25")
	}
	rate := "day"
	depart, hasDepart := args["departAt"].(string)
	if hasDepart {
		pence, rules = pence+40, append(rules, "Pre-booking fee +£0.40")
		t, _ := time.Parse(time.RFC3339Nano, depart)
		md := t.Format("01-02")
		switch {
		case md == "12-25" || md == "12-26" || md == "01-01":
			rate = "holiday"
		case t.Hour() >= 22 || t.Hour() < 6:
			rate = "night"
		}
	}
	fare := pence / 100
	if rules == nil {
		rules = []string{}
	}
	if tool == "estimate_fare" {
		return map[string]any{
			"content": []map[string]any{{"type": "text", "text": fmt.Sprintf("£%.2f · %v miles · %d min · %s tariff", fare, miles, int(math.Round(seconds/60)), rate)}},
			"structuredContent": map[string]any{"fareGBP": fare, "distanceMiles": miles, "durationSeconds": seconds, "rate": rate,
				"airportSurchargeGBP": airport, "tariffVersion": "argyll-2024-04", "appliedRules": rules},
		}
	}
	u := fmt.Sprintf("%s/book?pickup=%s&dropoff=%s&vehicleType=%s&fare=%.2f&distance=%v&duration=%v",
		s.opts.BookingBaseURL, url.QueryEscape(pickup), url.QueryEscape(dropoff), vehicle, fare, miles, seconds)
	var departAt any
	if hasDepart {
		u += "&departAt=" + url.QueryEscape(depart)
		departAt = depart
	}
	if mg {
		u += "&meetAndGreet=1"
	}
	return map[string]any{
		"content": []map[string]any{{"type": "text", "text": fmt.Sprintf("Booking session ready — fare £%.2f · %v miles · %d min.\n\nSend the passenger this link to finish the booking (name, phone, date, payment):\n%s", fare, miles, int(math.Round(seconds/60)), u)}},
		"structuredContent": map[string]any{
			"bookingUrl": u, "confirmed": false, "requiresPassengerAction": true,
			"quote":     map[string]any{"fareGBP": fare, "distanceMiles": miles, "durationSeconds": seconds, "rate": rate, "vehicleType": vehicle, "tariffVersion": "argyll-2024-04"},
			"prefilled": map[string]any{"pickup": pickup, "dropoff": dropoff, "vehicleType": vehicle, "departAt": departAt, "meetAndGreet": mg},
		},
	}
}

func haversineMiles(a, b place) float64 {
	const r = 3958.8
	rad := math.Pi / 180
	dLat, dLon := (b.lat-a.lat)*rad, (b.lon-a.lon)*rad
	h := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.lat*rad)*math.Cos(b.lat*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * r * math.Asin(math.Sqrt(h))
}
