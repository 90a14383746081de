package main

import (
	"fmt"
	"time"

	"github.com/tridenttaxis/trident-mcp/server"
)

// parseShutdown reads SHUTDOWN_DELAY (0 turns the drain off) and
// SHUTDOWN_TIMEOUT into o.
func parseShutdown(get func(string) string, o *server.Options) error {
	d, err := time.ParseDuration(get("SHUTDOWN_DELAY"))
	if err != nil || d < 0 {
		return fmt.Errorf("SHUTDOWN_DELAY=%q: want a duration such as 5s (0 for none)", get("SHUTDOWN_DELAY"))
	}
	o.ShutdownDelay = d
	if d == 0 {
		o.ShutdownDelay = -1 // server.Options' "none"
	}
	t, err := time.ParseDuration(get("SHUTDOWN_TIMEOUT"))
	if err != nil || t <= 0 {
		return fmt.Errorf("SHUTDOWN_TIMEOUT=%q: want a positive duration such as 30s", get("SHUTDOWN_TIMEOUT"))
	}
	o.ShutdownTimeout = t
	return nil
}
