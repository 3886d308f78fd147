package store_test

import (
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestChangesPageCutInsideACommit: a commit of more rows than a page is
// read whole, page after page, when it is the newest commit (seq equals
// the position the next page starts after). Failed before the fix: the
// second page came back empty, without More, on every transport.
func TestChangesPageCutInsideACommit(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		ctx := storetest.Ctx(t)
		a := s.Atomic()
		for i := range 25 {
			a.Set(codec.Key{codec.String("big"), codec.Number(float64(i))}, []byte(`1`))
		}
		if _, err := a.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		opts := store.ChangesOptions{Limit: 10}
		seen := 0
		for range 5 {
			p, err := s.Changes(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			seen += len(p.Entries)
			if !p.More {
				break
			}
			opts.After, opts.AfterKey = p.Next, p.NextKey
		}
		if seen != 25 {
			t.Errorf("read %d rows of the 25 of one commit", seen)
		}
	})
}
