package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// places are service-area addresses the embedded geocoder knows; calls
// pair them differently each time, so the geocoder and router see many
// distinct lookups.
var places = []string{
	"Helensburgh Central Station", "Glasgow Airport", "Balloch", "Dumbarton", "Glasgow Central Station",
	"Alexandria", "Cardross", "Garelochhead", "Arrochar", "Paisley", "Clydebank", "Rhu",
}

// call is one kind of request of the mix, and what its reply must be.
type call struct {
	name string
	do   func(c *http.Client, base string, n int) error
}

// reply is one HTTP answer, read whole.
type reply struct {
	status int
	ctype  string
	body   []byte
}

func post(c *http.Client, base, accept, body string) (reply, error) {
	req, err := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	resp, err := c.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, fmt.Errorf("reading the reply: %w", err)
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return reply{resp.StatusCode, ct, b}, nil
}

const accept = "application/json, text/event-stream"

// rpc is the part of a JSON-RPC message the checks read.
type rpc struct {
	ID     int    `json:"id"`
	Method string `json:"method"`
	Result *struct {
		IsError           bool              `json:"isError"`
		StructuredContent map[string]any    `json:"structuredContent"`
		Tools             []json.RawMessage `json:"tools"`
	} `json:"result"`
	Error *struct {
		Code int `json:"code"`
	} `json:"error"`
}

// tool posts tools/call of name with args and decodes the JSON reply,
// which must be HTTP wantStatus.
func tool(c *http.Client, base, name, args string, n, wantStatus int) (rpc, error) {
	var m rpc
	r, err := post(c, base, accept, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, n, name, args))
	if err != nil {
		return m, err
	}
	if r.status != wantStatus || r.ctype != "application/json" {
		return m, fmt.Errorf("HTTP %d %s, want %d application/json: %.300s", r.status, r.ctype, wantStatus, r.body)
	}
	if err := json.Unmarshal(r.body, &m); err != nil || m.ID != n {
		return m, fmt.Errorf("not the JSON-RPC reply to id %d: %.300s", n, r.body)
	}
	return m, nil
}

func wantResult(m rpc, isError bool, key string) error {
	switch {
	case m.Result == nil:
		return fmt.Errorf("no result: error %+v", m.Error)
	case m.Result.IsError != isError:
		return fmt.Errorf("isError %v, want %v", m.Result.IsError, isError)
	case key != "" && m.Result.StructuredContent[key] == nil:
		return fmt.Errorf("structuredContent has no %s", key)
	}
	return nil
}

func wantCode(m rpc, code int) error {
	if m.Error == nil || m.Error.Code != code {
		return fmt.Errorf("error %+v, want code %d", m.Error, code)
	}
	return nil
}

func trip(n int) string {
	from, to := places[n%len(places)], places[(n/len(places)+1+n)%len(places)]
	if from == to {
		to = "Glasgow Airport"
		if from == to {
			to = "Balloch"
		}
	}
	return fmt.Sprintf(`{"pickup":%q,"dropoff":%q}`, from, to)
}

// mix is the traffic, in the order each client cycles through it: mostly
// good calls, with bad ones and streamed ones among them.
var mix = []call{
	{"estimate_fare", func(c *http.Client, base string, n int) error {
		m, err := tool(c, base, "estimate_fare", trip(n), n, 200)
		if err != nil {
			return err
		}
		return wantResult(m, false, "fareGBP")
	}},
	{"start_booking", func(c *http.Client, base string, n int) error {
		args := strings.TrimSuffix(trip(n), "}") + `,"vehicleType":"saloon","passengers":2}`
		m, err := tool(c, base, "start_booking", args, n, 200)
		if err != nil {
			return err
		}
		return wantResult(m, false, "bookingUrl")
	}},
	{"estimate_fare over SSE", func(c *http.Client, base string, n int) error {
		r, err := post(c, base, accept, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"estimate_fare","arguments":%s,"_meta":{"progressToken":"p%d"}}}`, n, trip(n), n))
		if err != nil {
			return err
		}
		if r.status != 200 || r.ctype != "text/event-stream" {
			return fmt.Errorf("HTTP %d %s, want 200 text/event-stream", r.status, r.ctype)
		}
		var progress int
		var last rpc
		sc := bufio.NewScanner(bytes.NewReader(r.body))
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				last = rpc{}
				if err := json.Unmarshal([]byte(data), &last); err != nil {
					return fmt.Errorf("an event that is not JSON-RPC: %.200s", data)
				}
				if last.Method == "notifications/progress" {
					progress++
				}
			}
		}
		if progress != 4 || last.ID != n {
			return fmt.Errorf("%d progress events and a last event for id %d, want 4 and %d: %.300s", progress, last.ID, n, r.body)
		}
		return wantResult(last, false, "fareGBP")
	}},
	{"get_service_info", func(c *http.Client, base string, n int) error {
		m, err := tool(c, base, "get_service_info", `{}`, n, 200)
		if err != nil {
			return err
		}
		return wantResult(m, false, "brand")
	}},
	{"estimate_fare, invalid arguments", func(c *http.Client, base string, n int) error {
		m, err := tool(c, base, "estimate_fare", `{"pickup":"ab","dropoff":7}`, n, 200)
		if err != nil {
			return err
		}
		return wantCode(m, -32602)
	}},
	{"estimate_fare", func(c *http.Client, base string, n int) error {
		m, err := tool(c, base, "estimate_fare", trip(n+7), n, 200)
		if err != nil {
			return err
		}
		return wantResult(m, false, "fareGBP")
	}},
	{"estimate_fare, unknown address", func(c *http.Client, base string, n int) error {
		m, err := tool(c, base, "estimate_fare", fmt.Sprintf(`{"pickup":"Qz Unknown %d","dropoff":"Glasgow Airport"}`, n), n, 200)
		if err != nil {
			return err
		}
		return wantResult(m, true, "")
	}},
	{"start_booking, too many passengers", func(c *http.Client, base string, n int) error {
		m, err := tool(c, base, "start_booking", `{"pickup":"Balloch","dropoff":"Glasgow Airport","vehicleType":"saloon","passengers":6}`, n, 200)
		if err != nil {
			return err
		}
		return wantResult(m, true, "")
	}},
	{"unknown tool", func(c *http.Client, base string, n int) error {
		m, err := tool(c, base, "order_pizza", `{}`, n, 200)
		if err != nil {
			return err
		}
		return wantCode(m, -32601)
	}},
	{"tools/list", func(c *http.Client, base string, n int) error {
		r, err := post(c, base, accept, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, n))
		if err != nil {
			return err
		}
		var m rpc
		if r.status != 200 || json.Unmarshal(r.body, &m) != nil || m.Result == nil || len(m.Result.Tools) != 3 {
			return fmt.Errorf("HTTP %d, want 200 and three tools: %.300s", r.status, r.body)
		}
		return nil
	}},
	{"malformed JSON", func(c *http.Client, base string, n int) error {
		r, err := post(c, base, accept, `{"jsonrpc":"2.0","id":`)
		if err != nil {
			return err
		}
		var m rpc
		if r.status != 400 || json.Unmarshal(r.body, &m) != nil {
			return fmt.Errorf("HTTP %d, want 400 and a JSON-RPC error: %.300s", r.status, r.body)
		}
		return wantCode(m, -32700)
	}},
	{"refused Accept", func(c *http.Client, base string, n int) error {
		r, err := post(c, base, "text/html", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, n))
		if err != nil {
			return err
		}
		if r.status != 406 {
			return fmt.Errorf("HTTP %d, want 406: %.300s", r.status, r.body)
		}
		return nil
	}},
}
