package store

import (
	"bytes"
	"context"
	"sync"
	"testing"
)

// The first key offered is kept; later offers, after a reopen too, and
// concurrent first offers all read back that one key.
func TestSigningKeyKeptOnce(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engine) {
		url := e.url(t)
		ctx := context.Background()
		first := SigningKey{KID: "stored-a", Key: bytes.Repeat([]byte{1}, 32)}
		st := open(t, url, newClock())
		keeper := st.(KeyKeeper)
		if keeper.Shared() != (e.name == "postgres") {
			t.Errorf("Shared() = %v on %s", keeper.Shared(), e.name)
		}
		got, err := keeper.SigningKey(ctx, first)
		if err != nil {
			t.Fatal(err)
		}
		if got.KID != first.KID || !bytes.Equal(got.Key, first.Key) || got.CreatedAt.IsZero() {
			t.Fatalf("first offer: %+v", got)
		}
		again, err := open(t, url, nil).(KeyKeeper).SigningKey(ctx, SigningKey{KID: "stored-b", Key: bytes.Repeat([]byte{2}, 32)})
		if err != nil {
			t.Fatal(err)
		}
		if again.KID != "stored-a" || !bytes.Equal(again.Key, first.Key) {
			t.Errorf("after a reopen: %+v, want the first key", again)
		}
	})
}

func TestSigningKeyConcurrentFirstOffers(t *testing.T) {
	url := sqliteEngine().url(t)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		kids = map[string]bool{}
	)
	for i := range 4 {
		st := open(t, url, nil).(KeyKeeper)
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := st.SigningKey(context.Background(), SigningKey{KID: "stored-" + itoa(i), Key: bytes.Repeat([]byte{byte(i + 1)}, 32)})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			kids[k.KID] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(kids) != 1 {
		t.Errorf("processes starting together read back %d keys: %v", len(kids), kids)
	}
}

func TestIsPostgres(t *testing.T) {
	for url, want := range map[string]bool{"postgres://x/y": true, "postgresql://x/y": true, "sqlite:relay.db": false, "": false} {
		if IsPostgres(url) != want {
			t.Errorf("IsPostgres(%q) = %v", url, !want)
		}
	}
}
