package relay

import (
	"encoding/json"
	"errors"

	"github.com/tridenttaxis/trident-mcp/client"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
)

// Refusal returns the Refusal of a Relay rides tool that refused
// (isError: true): its status (invalid_option, rate_limited, ...), message
// and details. ok is false when err is no Relay refusal.
//
//	out, err := c.SearchRides(ctx, in)
//	if r, ok := relay.Refusal(err); ok && r.Status == mcptypes.RefusalStatusInvalidOption {
//		// search again in the same journey
//	}
func Refusal(err error) (*mcptypes.Refusal, bool) {
	var te *client.ToolError
	if !errors.As(err, &te) || te.Result == nil || len(te.Result.StructuredContent) == 0 {
		return nil, false
	}
	var r mcptypes.Refusal
	if json.Unmarshal(te.Result.StructuredContent, &r) != nil || !r.Status.Valid() {
		return nil, false
	}
	return &r, true
}
