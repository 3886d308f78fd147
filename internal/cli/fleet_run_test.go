package cli

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"kvdeck/internal/storeconfig"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestFleetMembersOneReaderAtATime: the Fleet view and a tab's fleet mode
// read the same saved stores through one fleetMembers. A second take of
// a store taken waits until the first is given back, then gets the same
// open store (opened once); a take that cannot wait longer than its
// context fails with the context's error and leaves the store to the
// reader that has it. Before, the second take opened another store,
// which the first give then kept or closed in its place.
func TestFleetMembersOneReaderAtATime(t *testing.T) {
	url := "file:" + filepath.Join(t.TempDir(), "a.db")
	storetest.Open(t, url, store.Options{Create: true}).Close()
	st := storeconfig.Store{Name: "a", URL: url}
	var opens atomic.Int32
	open := func(ctx context.Context) (string, *store.Store, error) {
		opens.Add(1)
		s, err := store.Open(ctx, url, store.Options{ReadOnly: true, Unchecked: true})
		return "", s, err
	}
	var f fleetMembers
	defer f.close()
	ctx := storetest.Ctx(t)
	first, _, err := f.take(ctx, st, open)
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, _, err := f.take(short, st, open); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a take while the store is taken: %v, want it to wait until its deadline", err)
	}
	got := make(chan *store.Store, 1)
	go func() {
		s, _, err := f.take(ctx, st, open)
		if err != nil {
			t.Error(err)
		}
		got <- s
	}()
	select {
	case <-got:
		t.Fatal("a second take did not wait for the first to be given back")
	case <-time.After(100 * time.Millisecond):
	}
	f.give("a", nil)
	second := <-got
	f.give("a", nil)
	if second != first || opens.Load() != 1 {
		t.Errorf("the second reader got another store (%v) or the store was opened %d times, want the first store, opened once", second != first, opens.Load())
	}
}
