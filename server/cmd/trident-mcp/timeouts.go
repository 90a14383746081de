package main

import (
	"fmt"
	"time"

	"github.com/tridenttaxis/trident-mcp/server"
)

// parseTimeouts reads SHUTDOWN_DELAY (0 turns the drain off),
// SHUTDOWN_TIMEOUT and READ_HEADER_TIMEOUT into o.
func parseTimeouts(get func(string) string, o *server.Options) error {
	d, err := time.ParseDuration(get("SHUTDOWN_DELAY"))
	if err != nil || d < 0 {
		return fmt.Errorf("SHUTDOWN_DELAY=%q: want a duration such as 5s (0 for none)", get("SHUTDOWN_DELAY"))
	}
	o.ShutdownDelay = d
	if d == 0 {
		o.ShutdownDelay = -1 // server.Options' "none"
	}
	for _, v := range []struct {
		env string
		to  *time.Duration
	}{{"SHUTDOWN_TIMEOUT", &o.ShutdownTimeout}, {"READ_HEADER_TIMEOUT", &o.ReadHeaderTimeout}} {
		t, err := time.ParseDuration(get(v.env))
		if err != nil || t <= 0 {
			return fmt.Errorf("%s=%q: want a positive duration such as 10s", v.env, get(v.env))
		}
		*v.to = t
	}
	return nil
}
