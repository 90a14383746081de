package client

import (
	"encoding/json"
	"errors"

	relaytypes "github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
)

// RelayRefusal returns the Refusal of a Relay rides tool that refused
// (isError: true): its status (invalid_option, rate_limited, ...), message
// and details. ok is false when err is no Relay refusal.
//
//	out, err := c.SearchRides(ctx, in)
//	if r, ok := client.RelayRefusal(err); ok && r.Status == relaytypes.RefusalStatusInvalidOption {
//		// search again in the same journey
//	}
func RelayRefusal(err error) (*relaytypes.Refusal, bool) {
	var te *ToolError
	if !errors.As(err, &te) || te.Result == nil || len(te.Result.StructuredContent) == 0 {
		return nil, false
	}
	var r relaytypes.Refusal
	if json.Unmarshal(te.Result.StructuredContent, &r) != nil || !r.Status.Valid() {
		return nil, false
	}
	return &r, true
}
