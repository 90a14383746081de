package store

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
)

// DefaultRetention is RELAY_RETENTION's default: how long retained signals
// and idle journeys are kept.
const DefaultRetention = 30 * 24 * time.Hour

// ParseRetention reads RELAY_RETENTION: a Go duration ("720h", "90m") or a
// whole number of days ("30d"). Empty gives [DefaultRetention]; zero or
// negative is refused, since it would purge what is being written.
func ParseRetention(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultRetention, nil
	}
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil {
			return 0, fmt.Errorf("RELAY_RETENTION %q: want a duration such as 720h or a number of days such as 30d", s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("RELAY_RETENTION %q: want a duration such as 720h or a number of days such as 30d", s)
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("RELAY_RETENTION %q: must be positive", s)
	}
	return d, nil
}

// Purger purges a store in the background: once at start, then every
// Interval, deleting what is older than Retention. Several replicas may each
// run one; purges are idempotent.
type Purger struct {
	// Store is what to purge (a [Store] satisfies it).
	Store interface {
		Purge(ctx context.Context, before time.Time) (Purged, error)
	}
	// Retention: zero means [DefaultRetention].
	Retention time.Duration
	// Interval between purges. Zero: one hour.
	Interval time.Duration
	// Now is the clock the cut-off is taken from. Nil: time.Now.
	Now func() time.Time
	// After waits between purges. Nil: time.After. Tests pass a channel they
	// tick, so they never sleep.
	After func(time.Duration) <-chan time.Time
	// Log receives a line per purge that deleted something and per failure.
	// Nil: slog.Default().
	Log *slog.Logger
}

// Run purges until ctx is done, then returns ctx's error. A failed purge is
// logged and tried again at the next interval: retention is best effort
// between intervals, never a reason to stop serving.
func (p *Purger) Run(ctx context.Context) error {
	for {
		p.PurgeOnce(ctx)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-p.after()(p.interval()):
		}
	}
}

// PurgeOnce purges what is older than Retention at Now.
func (p *Purger) PurgeOnce(ctx context.Context) (Purged, error) {
	before := p.now()().Add(-p.retention())
	n, err := p.Store.Purge(ctx, before)
	log := p.Log
	if log == nil {
		log = slog.Default()
	}
	switch {
	case err != nil && ctx.Err() == nil:
		log.Error("relay store: purge failed", "before", before, "err", err)
	case n != Purged{}:
		log.Info("relay store: purged", "before", before, "events", n.Events, "connector_reports", n.ConnectorReports,
			"intents", n.Intents, "journeys", n.Journeys, "sessions", n.Sessions)
	}
	return n, err
}

func (p *Purger) retention() time.Duration {
	if p.Retention <= 0 {
		return DefaultRetention
	}
	return p.Retention
}

func (p *Purger) interval() time.Duration {
	if p.Interval <= 0 {
		return time.Hour
	}
	return p.Interval
}

func (p *Purger) now() func() time.Time {
	if p.Now == nil {
		return time.Now
	}
	return p.Now
}

func (p *Purger) after() func(time.Duration) <-chan time.Time {
	if p.After == nil {
		return time.After
	}
	return p.After
}
