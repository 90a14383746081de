package relay_test

import (
	"context"
	"encoding/base64"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/client"
	relayclient "github.com/tridenttaxis/trident-mcp/client/relay"
	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// binaryKeys are RELAY_SIGNING_KEYS for processes that must verify each
// other's contexts and options (a restart, a second replica).
var binaryKeys = "RELAY_SIGNING_KEYS=k1:" + base64.RawStdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))

func relayClient(tb testing.TB, base string) *relayclient.Client {
	tb.Helper()
	c, err := relayclient.New(base + "/mcp/rides")
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// continues reports whether continue_journey accepts rc on c (any status
// but a refusal): the journey is in the store and the context verifies.
func continues(ctx context.Context, c *relayclient.Client, rc mcptypes.RelayContext) (mcptypes.ContinueJourneyResultStatus, error) {
	out, err := c.ContinueJourney(ctx, mcptypes.ContinueJourneyInput{JourneyID: rc.JourneyID, Context: rc, ToConnector: "stays"})
	if err != nil {
		return "", err
	}
	return out.Status, nil
}

// TestJourneySurvivesRestart runs the real binary on one SQLite file: a
// journey begun before a SIGTERM continues after the restart, and after a
// kill -9 in the middle of writes every acknowledged journey is still there.
func TestJourneySurvivesRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the server binary")
	}
	bin := testserver.Build(t)
	ctx := context.Background()

	t.Run("SIGTERM", func(t *testing.T) {
		db := "RELAY_DATABASE_URL=sqlite:" + filepath.Join(t.TempDir(), "relay.db")
		p := testserver.Run(t, bin, testserver.FreeAddr(t), db, binaryKeys)
		out, err := relayClient(t, p.Base).SearchRides(ctx, mcptypes.SearchRidesInput{Pickup: &jfk, Dropoff: &timesSquare, DestinationCity: ptr("New York"), PartySize: ptr(int64(2))})
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := p.Wait(15 * time.Second); err != nil {
			t.Fatalf("SIGTERM: %v\n%s", err, p.Logs())
		}
		again := testserver.Run(t, bin, testserver.FreeAddr(t), db, binaryKeys)
		c := relayClient(t, again.Base)
		res, err := c.ContinueJourney(ctx, mcptypes.ContinueJourneyInput{JourneyID: out.RelayContext.JourneyID, Context: out.RelayContext, ToConnector: "dining"})
		if err != nil {
			t.Fatalf("after the restart: %v", err)
		}
		if res.Status != "installation_unknown" || res.ContinuationContext.DestinationCity == nil || *res.ContinuationContext.DestinationCity != "New York" {
			t.Errorf("after the restart: %+v", res)
		}
		// A search in the same journey keeps the stored party size.
		next, err := c.SearchRides(ctx, mcptypes.SearchRidesInput{Pickup: &jfk, Dropoff: &timesSquare, Context: &res.RelayContext})
		if err != nil || next.ContinuationContext.PartySize == nil || *next.ContinuationContext.PartySize != 2 || next.RelayContext.JourneyID != out.RelayContext.JourneyID {
			t.Errorf("search after the restart: %v %+v", err, next)
		}
	})

	t.Run("kill -9 during writes", func(t *testing.T) {
		db := "RELAY_DATABASE_URL=sqlite:" + filepath.Join(t.TempDir(), "relay.db")
		p := testserver.Run(t, bin, testserver.FreeAddr(t), db, binaryKeys)
		c := relayClient(t, p.Base)
		var (
			mu    sync.Mutex
			acked []mcptypes.RelayContext
			wg    sync.WaitGroup
		)
		stop := make(chan struct{})
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					out, err := c.SearchRides(ctx, mcptypes.SearchRidesInput{Pickup: &jfk, Dropoff: &timesSquare, PartySize: ptr(int64(1))})
					if err != nil {
						return // the process died under the call: not acknowledged
					}
					mu.Lock()
					acked = append(acked, out.RelayContext)
					mu.Unlock()
				}
			}()
		}
		for {
			mu.Lock()
			n := len(acked)
			mu.Unlock()
			if n >= 40 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := p.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		close(stop)
		wg.Wait()
		_ = p.Wait(10 * time.Second)
		again := relayClient(t, testserver.Run(t, bin, testserver.FreeAddr(t), db, binaryKeys).Base)
		lost := 0
		for _, rc := range acked {
			if _, err := continues(ctx, again, rc); err != nil {
				var te *client.ToolError
				if !errors.As(err, &te) {
					t.Fatal(err)
				}
				lost++
			}
		}
		t.Logf("%d journeys acknowledged before kill -9, %d lost", len(acked), lost)
		if lost > 0 {
			t.Errorf("%d of %d acknowledged journeys lost", lost, len(acked))
		}
	})
}
