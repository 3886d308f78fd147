package journal

import (
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestSettle: entries without an outcome are settled by reading their
// keys on a real store: a set never made is not applied; a set whose rows
// are there (under one stamp newer than any the journal saw) is applied
// with its before-images unknown; a row that holds the value but under a
// stamp the journal saw before is not the write's; half a write stays
// unknown; this process's own write in flight is left alone. Settling
// twice adds nothing.
func TestSettle(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		ctx := storetest.Ctx(t)
		j := openIn(t, t.TempDir(), "file:settle.db", 0)
		set := func(k string, v string) store.PendingWrite {
			return store.PendingWrite{Op: "set", Kind: "commit", Keys: [][]byte{enc(k)},
				Mutations: []store.Mutation{{Type: store.MutationSet, Key: key(k), Value: []byte(v)}}}
		}
		// An old row "x" = 1, then an applied entry whose stamp the
		// journal records: a later intent to set x = 1 must not be taken
		// for applied by the old row.
		if _, err := s.Set(ctx, key("x"), []byte("1"), nil); err != nil {
			t.Fatal(err)
		}
		stamp, err := s.Set(ctx, key("seen"), []byte("0"), nil)
		if err != nil {
			t.Fatal(err)
		}
		write(t, j, set("seen", "0"), store.WriteResult{Outcome: store.OutcomeApplied, Stamp: stamp}, "")
		intent := func(w store.PendingWrite) string {
			id, err := j.Before(ctx, w)
			if err != nil {
				t.Fatal(err)
			}
			return id
		}
		never := intent(set("never", `"n"`))
		made := intent(set("made", `{"a": 1}`))
		old := intent(set("x", "1"))
		half := intent(store.PendingWrite{Op: "atomic", Kind: "commit", Keys: [][]byte{enc("h1"), enc("h2")},
			Mutations: []store.Mutation{{Type: store.MutationSet, Key: key("h1"), Value: []byte("1")}, {Type: store.MutationSet, Key: key("h2"), Value: []byte("2")}}})
		// What the killed processes did (or not): "made" committed, and
		// h1 alone was written by someone.
		if _, err := s.Set(ctx, key("made"), []byte(`{"a":1}`), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Set(ctx, key("h1"), []byte("1"), nil); err != nil {
			t.Fatal(err)
		}
		// The others were written by processes now dead; "mine" is this
		// Journal's own write, still in flight.
		j.mu.Lock()
		for _, id := range []string{never, made, old, half} {
			delete(j.pending, id)
		}
		j.mu.Unlock()
		mine := intent(set("mine", "1"))
		if err := j.Settle(ctx, s); err != nil {
			t.Fatal(err)
		}
		entries, _, err := j.List()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]Entry{}
		for _, e := range entries {
			got[e.ID] = e
		}
		check := func(id, name string, want store.Outcome, beforeUnknown bool) {
			t.Helper()
			e := got[id]
			if e.Outcome != want || e.BeforeUnknown != beforeUnknown || (want != store.OutcomeUnknown) != e.Settled {
				t.Errorf("%s: outcome %s, beforeUnknown %v, settled %v; want %s, %v", name, e.Outcome, e.BeforeUnknown, e.Settled, want, beforeUnknown)
			}
		}
		check(never, "never made", store.OutcomeNotApplied, false)
		check(made, "made", store.OutcomeApplied, true)
		check(old, "an older row with the same value", store.OutcomeNotApplied, false)
		check(half, "half a write", store.OutcomeUnknown, false)
		check(mine, "in flight", store.OutcomeUnknown, false)
		if e := got[made]; e.Stamp == "" || Undoable(e, entries) == nil {
			t.Errorf("made: stamp %q, undoable %v", e.Stamp, Undoable(e, entries))
		}
		lines, _, _ := j.readLines()
		if err := j.Settle(ctx, s); err != nil {
			t.Fatal(err)
		}
		if again, _, _ := j.readLines(); len(again) != len(lines) {
			t.Errorf("settling again wrote %d lines", len(again)-len(lines))
		}
	})
}

// TestUndoNeedsItsJournal: an undo through a store whose writes another
// journal (or none) records is refused: the undo could not be undone.
func TestUndoNeedsItsJournal(t *testing.T) {
	storetest.EachStore(t, []storetest.Backend{storetest.File()}, func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		ctx := storetest.Ctx(t)
		j := openIn(t, t.TempDir(), "file:n.db", 0)
		s.SetRecorder(j)
		if _, err := s.Set(store.WithWriteOp(ctx, "set"), key("n"), []byte("1"), nil); err != nil {
			t.Fatal(err)
		}
		p, err := j.PlanUndo(ctx, s, "")
		if err != nil || len(p.Ops) != 1 || p.Ops[0].Put != nil || len(p.Conflicts) != 0 {
			t.Fatalf("plan %+v %v", p, err)
		}
		s.SetRecorder(nil)
		if _, err := j.Undo(ctx, s, p); err == nil {
			t.Fatal("undo through an unjournaled store: no error")
		}
		s.SetRecorder(j)
		if res, err := j.Undo(ctx, s, p); err != nil || !res.OK {
			t.Fatalf("undo: %+v %v", res, err)
		}
		if _, found, _ := s.Get(ctx, key("n")); found {
			t.Fatal("the key the undone set created is still there")
		}
	})
}
