package journal

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestSettle: entries without an outcome are settled by evidence on a
// real store: a set whose rows are there (under one stamp newer than any
// the journal saw) is applied with its before-images unknown; a key still
// at a stamp from before the write proves it not applied; a set whose key
// shows nothing while another writer took a stamp since is unknown (it
// may have been made and its row removed), and says which key to check;
// half a write stays unknown; this process's own write in flight is left
// alone. Settling twice adds nothing.
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
			if e.Outcome != want || e.BeforeUnknown != beforeUnknown || (id != mine) != e.Settled || (id != mine && e.Why == "") {
				t.Errorf("%s: outcome %s, beforeUnknown %v, settled %v; want %s, %v", name, e.Outcome, e.BeforeUnknown, e.Settled, want, beforeUnknown)
			}
		}
		check(never, "no row, and a stamp not the journal's since", store.OutcomeUnknown, false)
		check(made, "made", store.OutcomeApplied, true)
		check(old, "an older row with the same value", store.OutcomeNotApplied, false)
		check(half, "half a write", store.OutcomeUnknown, false)
		check(mine, "in flight", store.OutcomeUnknown, false)
		h := group(entries)
		if e := got[made]; e.Stamp == "" || h.Undoable(actOf(t, h, made)) == nil {
			t.Errorf("made: stamp %q, undoable %v", e.Stamp, h.Undoable(actOf(t, h, made)))
		}
		if e := got[never]; !strings.Contains(e.Why, `["never"]`) || !strings.Contains(e.Why, "check") {
			t.Errorf("never: why %q; want the key to check", e.Why)
		}
		if e := got[old]; !strings.Contains(e.Why, `["x"] still holds its row of stamp`) {
			t.Errorf("old: why %q", e.Why)
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

// TestSettleChangedSince: a set killed after its commit and before its
// outcome line, whose row another writer removed since (a queue's
// consumer deletes the message it took), is not called "not applied":
// no key shows it and none proves it absent, so it is unknown and says
// which key to check. Reading alone called it not applied before.
func TestSettleChangedSince(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		ctx := storetest.Ctx(t)
		j := openIn(t, t.TempDir(), "file:since.db", 0)
		w := store.PendingWrite{Op: "queue send", Kind: "commit", Keys: [][]byte{enc("msg")},
			Mutations: []store.Mutation{{Type: store.MutationSet, Key: key("msg"), Value: []byte(`{"job":1}`)}}}
		id, err := j.Before(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Set(ctx, key("msg"), []byte(`{"job":1}`), nil); err != nil { // its commit
			t.Fatal(err)
		}
		if err := s.Delete(ctx, key("msg")); err != nil { // the consumer
			t.Fatal(err)
		}
		j.mu.Lock()
		delete(j.pending, id) // its process died
		j.mu.Unlock()
		if err := j.Settle(ctx, s); err != nil {
			t.Fatal(err)
		}
		entries, _, _ := j.List()
		e := entries[0]
		if e.Outcome != store.OutcomeUnknown || !e.Settled || !strings.Contains(e.Why, `["msg"]`) {
			t.Fatalf("settled %s (settled %v): %q; want unknown, naming the key", e.Outcome, e.Settled, e.Why)
		}
	})
}

// TestSettleByStamps: a set whose process died before its commit is not
// applied when the store tells: its seq has not moved since the newest
// stamp recorded before it, or every stamp issued since is another
// journaled write's.
func TestSettleByStamps(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		ctx := storetest.Ctx(t)
		j := openIn(t, t.TempDir(), "file:stamps.db", 0)
		s.SetRecorder(j)
		set := func(k string) store.PendingWrite {
			return store.PendingWrite{Op: "set", Kind: "commit", Keys: [][]byte{enc(k)},
				Mutations: []store.Mutation{{Type: store.MutationSet, Key: key(k), Value: []byte(`1`)}}}
		}
		if _, err := s.Set(store.WithWriteOp(ctx, "set"), key("first"), []byte(`0`), nil); err != nil {
			t.Fatal(err)
		}
		still, err := j.Before(ctx, set("still"))
		if err != nil {
			t.Fatal(err)
		}
		j.mu.Lock()
		delete(j.pending, still)
		j.mu.Unlock()
		if err := j.Settle(ctx, s); err != nil {
			t.Fatal(err)
		}
		entries, _, _ := j.List()
		if e := entries[1]; e.Outcome != store.OutcomeNotApplied || !strings.Contains(e.Why, "seq is still") {
			t.Fatalf("seq unmoved: %s %q", e.Outcome, e.Why)
		}
		gone, err := j.Before(ctx, set("gone"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Set(store.WithWriteOp(ctx, "set"), key("other"), []byte(`2`), nil); err != nil { // journaled: its stamp is known
			t.Fatal(err)
		}
		j.mu.Lock()
		delete(j.pending, gone)
		j.mu.Unlock()
		if err := j.Settle(ctx, s); err != nil {
			t.Fatal(err)
		}
		entries, _, _ = j.List()
		if e := entries[2]; e.ID != gone || e.Outcome != store.OutcomeNotApplied || !strings.Contains(e.Why, "another journaled write's") {
			t.Fatalf("every stamp another's: %s %s %q", e.ID, e.Outcome, e.Why)
		}
	})
}
