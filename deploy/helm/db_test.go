package helm_test

import (
	"context"
	"crypto/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// postgresDB creates a database of the test's own on the machine's local
// PostgreSQL (RELAY_TEST_POSTGRES_URL elsewhere) and drops it when the test
// ends. Without a server the test is skipped, except under CI, where it
// fails. It is server/relay's test helper of the same name again: this
// module does not import the server's.
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
	name := "deploy_chart_" + strings.ToLower(rand.Text()[:12])
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Errorf("dropping %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	cfg := conn.Config()
	return "postgres://" + cfg.User + "@" + cfg.Host + ":" + strconv.Itoa(int(cfg.Port)) + "/" + name + "?sslmode=disable"
}
