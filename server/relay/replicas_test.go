package relay_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tridenttaxis/trident-mcp/client"
	relayclient "github.com/tridenttaxis/trident-mcp/client/relay"
	"github.com/tridenttaxis/trident-mcp/gen/errcodes"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/fakeproviders"
	"github.com/tridenttaxis/trident-mcp/internal/testserver"
	"github.com/tridenttaxis/trident-mcp/server/relay"
)

// postgresDB creates a uniquely named database on the machine's local
// PostgreSQL (RELAY_TEST_POSTGRES_URL elsewhere) and drops it when the test
// ends. Without a server the test is skipped, except under CI, where it
// fails.
func postgresDB(t *testing.T) string {
	t.Helper()
	admin := os.Getenv("RELAY_TEST_POSTGRES_URL")
	if admin == "" {
		admin = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL at %s: %v", admin, err)
		}
		t.Skipf("PostgreSQL at %s does not answer: %v", admin, err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	name := "relayreplicas_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, admin); err == nil {
			c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(ctx)
		}
	})
	cfg := conn.Config()
	return "postgres://" + cfg.User + "@" + cfg.Host + ":" + strconv.Itoa(int(cfg.Port)) + "/" + name + "?sslmode=disable"
}

// TestTwoReplicas starts two server processes sharing RELAY_DATABASE_URL
// (PostgreSQL), RELAY_SIGNING_KEYS and REDIS_URL: options issued by A verify
// on B, and a journey begun on A continues on B.
func TestTwoReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts two server binaries")
	}
	dbURL := postgresDB(t)
	bin := testserver.Build(t)
	// One caller (both clients come from 127.0.0.1) may make 60 calls a
	// minute across both replicas: enough for the checks below, and a
	// limit the last check reaches.
	env := []string{"RELAY_DATABASE_URL=" + dbURL, binaryKeys, "REDIS_URL=redis://127.0.0.1:6379/0",
		"REDIS_KEY_PREFIX=replicas-" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":", "RELAY_RATE_LIMIT=60"}
	a := testserver.Run(t, bin, testserver.FreeAddr(t), env...)
	b := testserver.Run(t, bin, testserver.FreeAddr(t), env...)
	ca, cb := relayClient(t, a.Base), relayClient(t, b.Base)
	ctx := context.Background()

	out, err := ca.SearchRides(ctx, mcptypes.SearchRidesInput{Pickup: &helensburgh, Dropoff: &glasgowAir, PartySize: ptr(int64(2)), DestinationCity: ptr("Glasgow"),
		JourneyContext: &mcptypes.JourneyContext{StartDate: ptr("2026-12-10"), EndDate: ptr("2026-12-12")}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != "ok" || len(out.Options) == 0 {
		t.Fatalf("search on A: %s, %d options, %+v", out.Status, len(out.Options), out.Errors)
	}

	t.Run("an option issued by A verifies on B", func(t *testing.T) {
		cmp, err := cb.CompareRides(ctx, mcptypes.CompareRidesInput{Options: out.Options[:2], Context: &out.RelayContext})
		if err != nil || cmp.Status != "ok" {
			t.Fatalf("compare on B: %v %+v", err, cmp)
		}
		h, err := cb.GetRideBookingHandoff(ctx, mcptypes.GetRideBookingHandoffInput{Option: &out.Options[0], Context: &cmp.RelayContext})
		if err != nil || h.Status != "ok" || h.URL == nil {
			t.Fatalf("handoff on B: %v %+v", err, h)
		}
	})

	t.Run("a journey begun on A continues on B", func(t *testing.T) {
		body, _ := json.Marshal(map[string]any{"context": out.RelayContext, "connectors": []map[string]any{{"id": "stays", "installed": true, "enabled": true, "authorized": true}}})
		resp, err := http.Post(a.Base+relay.ConnectorsPath, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("report on A: %d", resp.StatusCode)
		}
		res, err := cb.ContinueJourney(ctx, mcptypes.ContinueJourneyInput{JourneyID: out.RelayContext.JourneyID, Context: out.RelayContext, ToConnector: "stays"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != "ready" || res.NextAction == nil || res.NextAction.Arguments["city"] != "Glasgow" {
			t.Errorf("continue on B after a report on A: %+v", res)
		}
	})

	t.Run("throughput", func(t *testing.T) {
		const n = 40
		start := time.Now()
		for i := range n {
			c := ca
			if i%2 == 1 {
				c = cb
			}
			if _, err := c.SearchRides(ctx, mcptypes.SearchRidesInput{Pickup: &helensburgh, Dropoff: &glasgowAir, PartySize: ptr(int64(2))}); err != nil {
				t.Fatal(err)
			}
		}
		d := time.Since(start)
		t.Logf("%d searches round-robin on two replicas (PostgreSQL store, Trident priced): %s, %.1f searches/s sequential", n, d, float64(n)/d.Seconds())
	})

	// Last, as it spends the caller's limit: once A refuses the caller,
	// B refuses it too, because both count in the same Redis.
	t.Run("a client limited on A is limited on B", func(t *testing.T) {
		nyc := mcptypes.SearchRidesInput{Pickup: &mcptypes.Coordinates{Latitude: 40.6413, Longitude: -73.7781}, Dropoff: &mcptypes.Coordinates{Latitude: 40.758, Longitude: -73.9855}}
		limited := func(c *relayclient.Client) bool {
			_, err := c.SearchRides(ctx, nyc)
			return client.CodeOf(err) == errcodes.RelayRateLimited
		}
		calls := 0
		for !limited(ca) {
			if calls++; calls > 200 {
				t.Fatal("A never limited the caller in 200 calls")
			}
		}
		if !limited(cb) {
			t.Error("A refused the caller rate_limited, but B let its next call through")
		}
	})
}

// TestTwoReplicasShareCooldowns: two server processes on one PostgreSQL and
// one Redis, Uber pointed at one fake. Uber answers A's search 429 with
// Retry-After: 120, and from then on B leaves Uber alone as A does: B's
// search reports it rate_limited, B refuses to resolve an Uber option with
// rate_limited and retry_after_seconds, and the fake sees no request from B.
func TestTwoReplicasShareCooldowns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts two server binaries")
	}
	dbURL := postgresDB(t)
	uber := fakeproviders.NewUber(t, "uber-token")
	bin := testserver.Build(t)
	env := []string{"RELAY_DATABASE_URL=" + dbURL, binaryKeys, "REDIS_URL=redis://127.0.0.1:6379/0",
		"REDIS_KEY_PREFIX=cooldowns-" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":",
		"UBER_API_URL=" + uber.URL, "UBER_ACCESS_TOKEN=uber-token", "RELAY_TRIDENT_URL=", "LOG_LEVEL=error"}
	a := testserver.Run(t, bin, testserver.FreeAddr(t), env...)
	b := testserver.Run(t, bin, testserver.FreeAddr(t), env...)
	ca, cb := relayClient(t, a.Base), relayClient(t, b.Base)
	ctx := context.Background()
	nyc := mcptypes.SearchRidesInput{Pickup: &jfk, Dropoff: &timesSquare, PartySize: ptr(int64(2))}
	calledUber := func(out mcptypes.SearchRidesResult) bool {
		for _, c := range out.ProviderCalls {
			if c.Provider == "uber" {
				return true
			}
		}
		return false
	}

	first, err := ca.SearchRides(ctx, nyc)
	if err != nil {
		t.Fatal(err)
	}
	var uberOption *mcptypes.RideOption
	for i := range first.Options {
		if first.Options[i].Provider == "uber" {
			uberOption = &first.Options[i]
			break
		}
	}
	if uberOption == nil {
		t.Fatalf("first search on A: no Uber option: %s %+v %+v", first.Status, first.Providers, first.Errors)
	}

	uber.Set(fakeproviders.RateLimited)
	uber.SetRetryAfter("120")
	limited, err := ca.SearchRides(ctx, nyc)
	if err != nil {
		t.Fatal(err)
	}
	if len(limited.Errors) != 1 || limited.Errors[0].Provider != "uber" || limited.Errors[0].Code != "rate_limited" ||
		limited.Errors[0].RetryAfterSeconds == nil || *limited.Errors[0].RetryAfterSeconds != 120 {
		t.Fatalf("A's search while Uber answers 429: errors %+v, want Uber rate_limited with retry_after_seconds 120", limited.Errors)
	}
	seen := len(uber.Calls())

	onB, err := cb.SearchRides(ctx, nyc)
	if err != nil {
		t.Fatal(err)
	}
	st := statusOf(*onB, "uber")
	if st.Status != "rate_limited" || st.Reason == nil || !strings.Contains(*st.Reason, "retry after") || calledUber(*onB) ||
		st.RetryAfterSeconds == nil || *st.RetryAfterSeconds < 110 || *st.RetryAfterSeconds > 120 {
		t.Errorf("B's search after A's 429: uber %+v (called: %v), want rate_limited, cooling down with retry_after_seconds about 120, not called", st, calledUber(*onB))
	}
	if st.Reason != nil {
		t.Logf("B's search: uber %s: %s", st.Status, *st.Reason)
	}

	_, err = cb.ResolveRide(ctx, mcptypes.ResolveRideInput{Option: *uberOption, Context: &first.RelayContext})
	var te *client.ToolError
	if !errors.As(err, &te) || te.Code != errcodes.RelayRateLimited {
		t.Fatalf("B resolving A's Uber option: %v, want the rate_limited refusal", err)
	}
	var r mcptypes.Refusal
	if err := json.Unmarshal(te.Result.StructuredContent, &r); err != nil {
		t.Fatal(err)
	}
	if r.Provider == nil || *r.Provider != "uber" || r.RetryAfterSeconds == nil || *r.RetryAfterSeconds <= 100 || *r.RetryAfterSeconds > 120 {
		t.Errorf("B's refusal %+v, want Uber with retry_after_seconds just under 120", r)
	} else {
		t.Logf("B's resolve_ride refusal: %s, retry_after_seconds %d", r.Status, *r.RetryAfterSeconds)
	}
	if n := len(uber.Calls()); n != seen {
		t.Errorf("the fake Uber got %d requests from B during the cool-down, want none", n-seen)
	}
}
