package mcphttp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
)

// A multi round-trip result (SEP-2322) may carry a requestState the client
// echoes on its retry, so that a stateless server remembers where the call
// stood without keeping anything. The client holds it, so it must not be
// able to forge one: the specification asks servers to integrity-protect
// it. The front door does that for every endpoint, so that a handler
// returns and reads its own plain state:
//
//	mcphttp.1.<base64url(expiry ‖ state)>.<base64url(HMAC-SHA256)>
//
// The MAC covers the method and name the state was minted for (a tool's
// state is no good for another tool) and an expiry an hour out (a client
// may take a while to answer an elicitation, but not for ever). The state
// itself is readable by the client: a handler never puts a secret in it.
//
// The keys are [Config.RequestStateKeys]; replicas behind one balancer
// share them, since a retry may reach any of them.

const (
	sealPrefix      = "mcphttp.1."
	requestStateTTL = time.Hour
)

// processStateKey is the key of a front door configured with none: random,
// per process, the same for every endpoint of it.
var processStateKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic("mcphttp: no randomness for the requestState key: " + err.Error())
	}
	return k
})

// stateSealer seals the requestState a handler returns and opens the one a
// client echoes.
type stateSealer struct {
	keys [][]byte // the first seals; every one opens
	now  func() time.Time
}

func newStateSealer(keys [][]byte) *stateSealer {
	if len(keys) == 0 {
		keys = [][]byte{processStateKey()}
	}
	return &stateSealer{keys: keys, now: time.Now}
}

func (s *stateSealer) mac(key []byte, scope string, payload []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(scope))
	m.Write([]byte{0})
	m.Write(payload)
	return m.Sum(nil)
}

// seal wraps state for scope (method and name).
func (s *stateSealer) seal(scope, state string) string {
	payload := make([]byte, 8, 8+len(state))
	binary.BigEndian.PutUint64(payload, uint64(s.now().Add(requestStateTTL).Unix()))
	payload = append(payload, state...)
	enc := base64.RawURLEncoding
	return sealPrefix + enc.EncodeToString(payload) + "." + enc.EncodeToString(s.mac(s.keys[0], scope, payload))
}

// open returns the state a sealed token holds for scope, or the -32602 a
// tampered, foreign or expired one is answered with.
func (s *stateSealer) open(scope, token string) (string, error) {
	refuse := func(reason string) (string, error) {
		return "", RPCError(errcodes.InvalidArguments, Message(errcodes.InvalidArguments, "field", "requestState", "reason", reason))
	}
	rest, ok := strings.CutPrefix(token, sealPrefix)
	p, m, ok2 := strings.Cut(rest, ".")
	enc := base64.RawURLEncoding
	payload, err := enc.DecodeString(p)
	mac, err2 := enc.DecodeString(m)
	if !ok || !ok2 || err != nil || err2 != nil || len(payload) < 8 {
		return refuse("not a requestState this server issued")
	}
	valid := false
	for _, k := range s.keys {
		if hmac.Equal(mac, s.mac(k, scope, payload)) {
			valid = true
			break
		}
	}
	if !valid {
		return refuse("failed its integrity check")
	}
	if s.now().Unix() > int64(binary.BigEndian.Uint64(payload)) {
		return refuse("expired; call again without it")
	}
	return string(payload[8:]), nil
}

// openState replaces the sealed state a client echoed with the plain one
// its handler issued, in place ("" stays "").
func (d *door) openState(scope string, state *string) error {
	if *state == "" {
		return nil
	}
	plain, err := d.states.open(scope, *state)
	if err != nil {
		return err
	}
	*state = plain
	return nil
}

// sealState replaces the plain state a handler returned with the sealed
// one the client gets, in place.
func (d *door) sealState(scope string, state *string) {
	if *state != "" {
		*state = d.states.seal(scope, *state)
	}
}

// withState runs call between opening the client's requestState (in, nil
// for a request without params) and sealing the one of its result (out of
// the result, nil for none): the part of guardState, guardPrompt and
// guardResource that is the same.
func withState[R any](d *door, scope string, in *string, call func() (R, error), out func(R) *string) (R, error) {
	if in != nil {
		if err := d.openState(scope, in); err != nil {
			var zero R
			return zero, err
		}
	}
	res, err := call()
	if err == nil {
		if p := out(res); p != nil {
			d.sealState(scope, p)
		}
	}
	return res, err
}

// guardState wraps a tool's handler so that it reads the plain state of a
// retry and its input-required result carries the sealed one. It sits
// inside observeTool, so a refused state is counted as the call's
// invalid_arguments.
func (d *door) guardState(method, name string, h mcp.ToolHandler) mcp.ToolHandler {
	scope := method + " " + name
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in *string
		if req.Params != nil {
			in = &req.Params.RequestState
		}
		return withState(d, scope, in, func() (*mcp.CallToolResult, error) { return h(ctx, req) },
			func(r *mcp.CallToolResult) *string {
				if r == nil {
					return nil
				}
				return &r.RequestState
			})
	}
}
