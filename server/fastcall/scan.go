package fastcall

import (
	"bytes"

	"github.com/tridenttaxis/trident-mcp/internal/jsonscan"
)

// The envelope of a call is split into raw members of JSON text already
// judged valid ([jsonscan.Valid]) with [jsonscan.EachMember], without allocating,
// so that it is read once; the fast path must also see a duplicate or
// escaped name, to leave such bodies to the go-sdk.

// member is one name/value pair of an object, both as raw JSON text; key is
// the name without its quotes and is only set for names without escapes.
type member struct {
	key   []byte
	value []byte
}

// maxMembers bounds the members the fast path reads; an envelope has four,
// tools/call params two. More sends the call to the go-sdk.
const maxMembers = 6

// members splits the JSON object b into at most maxMembers members. It
// reports false when b is not an object, has more members, or a name with an
// escape sequence or a duplicate name, leaving those bodies to the SDK.
func members(b []byte, out *[maxMembers]member) (int, bool) {
	n := 0
	ok := jsonscan.EachMember(b, func(key, val []byte) bool {
		if n == maxMembers {
			return false
		}
		for _, m := range out[:n] {
			if string(m.key) == string(key) {
				return false
			}
		}
		out[n] = member{key: key, value: val}
		n++
		return true
	})
	if !ok {
		return 0, false
	}
	return n, true
}

func hasEscape(s []byte) bool { return bytes.IndexByte(s, '\\') >= 0 }
