package relay_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tridenttaxis/trident-mcp/gen/relay/mcptypes"
	"github.com/tridenttaxis/trident-mcp/internal/testserver"
)

// TestKeptKeySurvivesRestart runs the real binary twice on one SQLite file
// without RELAY_SIGNING_KEYS, over real HTTP: the journey, its context and
// an option issued before the restart are all still valid after it.
func TestKeptKeySurvivesRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the server binary")
	}
	bin := testserver.Build(t)
	ctx := context.Background()
	db := "RELAY_DATABASE_URL=sqlite:" + filepath.Join(t.TempDir(), "relay.db")

	p := testserver.Run(t, bin, testserver.FreeAddr(t), db)
	out, err := relayClient(t, p.Base).SearchRides(ctx, mcptypes.SearchRidesInput{Pickup: &helensburgh, Dropoff: &glasgowAir, DestinationCity: ptr("Glasgow"), PartySize: ptr(int64(2))})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Options) == 0 {
		t.Fatalf("no option to carry over the restart: %+v", out.Providers)
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(15 * time.Second); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, p.Logs())
	}
	if logs := p.Logs(); !strings.Contains(logs, "kept in the store") {
		t.Errorf("the first start does not say where its key is kept:\n%s", logs)
	}

	c := relayClient(t, testserver.Run(t, bin, testserver.FreeAddr(t), db).Base)
	res, err := c.ContinueJourney(ctx, mcptypes.ContinueJourneyInput{JourneyID: out.RelayContext.JourneyID, Context: out.RelayContext, ToConnector: "dining"})
	if err != nil {
		t.Fatalf("continue_journey after the restart: %v", err)
	}
	if res.RelayContext.JourneyID != out.RelayContext.JourneyID || res.ContinuationContext.DestinationCity == nil || *res.ContinuationContext.DestinationCity != "Glasgow" {
		t.Errorf("after the restart: %+v", res)
	}
	cmp, err := c.CompareRides(ctx, mcptypes.CompareRidesInput{Options: out.Options[:1], Context: &out.RelayContext})
	if err != nil {
		t.Fatalf("an option issued before the restart: %v", err)
	}
	if len(cmp.Groups) == 0 {
		t.Errorf("compare after the restart: %+v", cmp)
	}
}

// TestPostgresNeedsSigningKeys starts the binary on a PostgreSQL store
// without RELAY_SIGNING_KEYS: it exits at once, naming the variable.
func TestPostgresNeedsSigningKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the server binary")
	}
	bin := testserver.Build(t)
	dbURL := postgresDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(os.Environ(), "ADDR="+testserver.FreeAddr(t), "RELAY_DATABASE_URL="+dbURL, "RELAY_SIGNING_KEYS=")
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the server kept running on PostgreSQL without RELAY_SIGNING_KEYS:\n%s", out)
	}
	if err == nil || !strings.Contains(string(out), "RELAY_SIGNING_KEYS is required with a PostgreSQL store") {
		t.Errorf("exit %v, output:\n%s", err, out)
	}
	if strings.Contains(string(out), "signing with") {
		t.Errorf("the refusal signs nothing, yet the log says it does:\n%s", out)
	}
}
