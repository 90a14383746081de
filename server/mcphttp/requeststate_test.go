package mcphttp

import (
	"strings"
	"testing"
	"time"
)

// TestStateSealer seals and opens requestState as the front door does
// between the rounds of a call: a state opens only in the scope it was
// sealed for, under any of the configured keys (so the first can rotate),
// and not after it expired.
func TestStateSealer(t *testing.T) {
	now := time.Date(2026, 7, 28, 9, 0, 0, 0, time.UTC)
	oldKey, newKey := []byte("old key of thirty-two bytes ....."), []byte("new key of thirty-two bytes .....")
	sealer := func(keys ...[]byte) *stateSealer {
		s := newStateSealer(keys)
		s.now = func() time.Time { return now }
		return s
	}
	sealed := sealer(oldKey).seal("tools/call a", "round=2;name=Ada")
	if strings.Contains(sealed, "Ada") || !strings.HasPrefix(sealed, sealPrefix) {
		t.Errorf("sealed %q: want the prefix and the state encoded", sealed)
	}
	if got, err := sealer(newKey, oldKey).open("tools/call a", sealed); err != nil || got != "round=2;name=Ada" {
		t.Errorf("open after a rotation: %q, %v", got, err)
	}
	for _, tt := range []struct {
		name, scope, token string
		s                  *stateSealer
	}{
		{"another tool", "tools/call b", sealed, sealer(oldKey)},
		{"a retired key", "tools/call a", sealed, sealer(newKey)},
		{"a flipped byte", "tools/call a", sealed[:len(sealed)-2] + "AA", sealer(oldKey)},
		{"no seal", "tools/call a", "round=2;name=Ada", sealer(oldKey)},
	} {
		if _, err := tt.s.open(tt.scope, tt.token); err == nil {
			t.Errorf("%s: opened", tt.name)
		}
	}
	late := sealer(oldKey)
	late.now = func() time.Time { return now.Add(requestStateTTL + time.Second) }
	if _, err := late.open("tools/call a", sealed); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("an expired state: %v, want refused as expired", err)
	}
}
