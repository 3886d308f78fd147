package journal

import (
	"context"
	"errors"
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/store"
)

// write journals a write by hand as the engine would: intent, then
// outcome, an action of its own; undoes tags it as an undo of that
// action.
func write(t *testing.T, j *Journal, w store.PendingWrite, r store.WriteResult, undoes string) string {
	t.Helper()
	return writeIn(t, j, nil, w, r, undoes)
}

// writeIn is write as a write of action act.
func writeIn(t *testing.T, j *Journal, act *store.Action, w store.PendingWrite, r store.WriteResult, undoes string) string {
	t.Helper()
	ctx := context.Background()
	if undoes != "" {
		ctx = context.WithValue(ctx, undoKey{}, &undoing{target: undoes})
	}
	w.Action = act
	id, err := j.Before(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	j.After(ctx, id, r)
	return id
}

func key(s string) codec.Key { return codec.Key{codec.String(s)} }
func enc(s string) []byte    { return codec.MustEncode(key(s)) }

// actOf is the action of entry id.
func actOf(t *testing.T, h History, id string) Action {
	t.Helper()
	for _, a := range h.Actions {
		for _, e := range a.Entries {
			if e.ID == id {
				return a
			}
		}
	}
	t.Fatalf("no action holds entry %s", id)
	return Action{}
}

// TestAfterAndDefault: what each kind of write leaves (its stamp for a
// key it set, 0 for a row it removed, nothing for a key it deleted that
// had no row); the writes of one store.Action are one action; the
// default undo is the newest user action not undone that changed a row,
// and after its undo the default steps further back, while redo's
// default is the action just undone.
func TestAfterAndDefault(t *testing.T) {
	j := openIn(t, t.TempDir(), "file:a.db", 0)
	a := write(t, j, store.PendingWrite{Op: "atomic", Kind: "commit", Keys: [][]byte{enc("x"), enc("y"), enc("z")},
		Mutations: []store.Mutation{{Type: store.MutationSet, Key: key("x"), Value: []byte("1")}, {Type: store.MutationDelete, Key: key("y")}, {Type: store.MutationDelete, Key: key("z")}}},
		store.WriteResult{Outcome: store.OutcomeApplied, Stamp: codec.FormatStamp(5), Before: []store.RawRow{{Key: enc("y"), Value: []byte("2"), Ver: 3}}}, "")
	sweep := store.NewAction("sweep")
	sw1 := writeIn(t, j, sweep, store.PendingWrite{Op: "sweep", Kind: "sweep", Keys: [][]byte{enc("p"), enc("q")}},
		store.WriteResult{Outcome: store.OutcomeApplied, Before: []store.RawRow{{Key: enc("p"), Value: []byte("3"), Ver: 2}}}, "")
	sw2 := writeIn(t, j, sweep, store.PendingWrite{Op: "sweep", Kind: "sweep", Keys: [][]byte{enc("r")}},
		store.WriteResult{Outcome: store.OutcomeApplied, Before: []store.RawRow{{Key: enc("r"), Value: []byte("4"), Ver: 1}}}, "")
	nothing := write(t, j, store.PendingWrite{Op: "delete", Kind: "delete", Keys: [][]byte{enc("n")}, Mutations: []store.Mutation{{Type: store.MutationDelete, Key: key("n")}}},
		store.WriteResult{Outcome: store.OutcomeApplied}, "")
	failed := write(t, j, store.PendingWrite{Op: "atomic", Kind: "commit", Keys: [][]byte{enc("x")}, Mutations: []store.Mutation{{Type: store.MutationSet, Key: key("x"), Value: []byte("9")}}},
		store.WriteResult{Outcome: store.OutcomeNotApplied}, "")
	h, _, err := j.History()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Entry{}
	for _, e := range h.Entries {
		byID[e.ID] = e
	}
	if got := byID[a].After; len(got) != 2 || got[string(enc("x"))] != 5 || got[string(enc("y"))] != 0 {
		t.Errorf("atomic After %v; want x:5, y:0 and not z", got)
	}
	if got := byID[sw1].After; len(got) != 1 || got[string(enc("p"))] != 0 {
		t.Errorf("sweep After %v; want p:0", got)
	}
	if len(h.Actions) != 4 {
		t.Fatalf("%d actions; want 4 (the sweep's two writes are one)", len(h.Actions))
	}
	swept := actOf(t, h, sw2)
	if swept.ID != actOf(t, h, sw1).ID || len(swept.Entries) != 2 || swept.Changed() != 2 || swept.Op != "sweep" {
		t.Fatalf("the sweep action: %+v", swept)
	}
	if err := h.Undoable(actOf(t, h, nothing)); !errors.Is(err, ErrNotUndoable) || !strings.Contains(err.Error(), "changed no row") {
		t.Errorf("delete of an absent key: %v", err)
	}
	if err := h.Undoable(actOf(t, h, failed)); !errors.Is(err, ErrNotUndoable) || !strings.Contains(err.Error(), "not applied") {
		t.Errorf("failed commit: %v", err)
	}
	// The default skips the actions that changed nothing.
	if got, err := h.DefaultUndo(); err != nil || got.ID != swept.ID {
		t.Fatalf("default %s %v; want the sweep %s", got.ID, err, swept.ID)
	}
	if _, err := h.DefaultRedo(); !errors.Is(err, ErrNotUndoable) {
		t.Fatalf("redo with nothing undone: %v", err)
	}
	// An undo of the sweep (by hand): the sweep reads as undone, the
	// default undo steps back to the atomic, redo's is the sweep.
	write(t, j, store.PendingWrite{Op: "undo " + swept.ID, Kind: "restore", Keys: [][]byte{enc("p"), enc("r")},
		Restores: []store.RestoreOp{{Key: enc("p"), Put: &store.RawRow{Key: enc("p"), Value: []byte("3")}}, {Key: enc("r"), Put: &store.RawRow{Key: enc("r"), Value: []byte("4")}}}},
		store.WriteResult{Outcome: store.OutcomeApplied, Stamp: codec.FormatStamp(6)}, swept.ID)
	h, _, _ = j.History()
	swept, _ = h.Action(swept.ID)
	if !h.Undone(swept) || swept.UndoneBy == "" {
		t.Fatalf("the sweep after its undo: %+v", swept)
	}
	if err := h.Undoable(swept); err == nil || !strings.Contains(err.Error(), "kvdeck redo "+swept.ID) {
		t.Errorf("undo of an undone action: %v", err)
	}
	if got, err := h.DefaultUndo(); err != nil || got.ID != actOf(t, h, a).ID {
		t.Fatalf("default after an undo: %s %v; want the atomic", got.ID, err)
	}
	if got, err := h.DefaultRedo(); err != nil || got.ID != swept.ID {
		t.Fatalf("redo's default: %s %v; want the sweep", got.ID, err)
	}
	undo, _ := h.Action(swept.UndoneBy)
	if err := h.Undoable(undo); err == nil || !strings.Contains(err.Error(), "is an undo or a redo of "+swept.ID) {
		t.Errorf("undo of an undo: %v", err)
	}
	// By a unique prefix; an unknown ID is ErrNoEntry.
	if got, err := h.Find(swept.ID[:5]); err != nil || got.ID != swept.ID {
		t.Errorf("prefix %s: %s %v", swept.ID[:5], got.ID, err)
	}
	if _, err := h.Find("nope-nope"); !errors.Is(err, ErrNoEntry) {
		t.Errorf("unknown id: %v", err)
	}
}

// TestOutcomeOrder: the writer's own outcome wins over a settlement read
// while its write was still on its way; an entry without an outcome is
// unknown.
func TestOutcomeOrder(t *testing.T) {
	j := openIn(t, t.TempDir(), "file:o.db", 0)
	id, err := j.Before(context.Background(), store.PendingWrite{Kind: "commit", Keys: [][]byte{enc("x")},
		Mutations: []store.Mutation{{Type: store.MutationSet, Key: key("x"), Value: []byte("1")}}})
	if err != nil {
		t.Fatal(err)
	}
	open, err := j.Before(context.Background(), store.PendingWrite{Kind: "delete", Keys: [][]byte{enc("y")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.writeRecord(record{T: recOutcome, ID: id, Outcome: string(store.OutcomeNotApplied), Settled: true}, true); err != nil {
		t.Fatal(err)
	}
	j.After(context.Background(), id, store.WriteResult{Outcome: store.OutcomeApplied, Stamp: codec.FormatStamp(4)})
	if err := j.writeRecord(record{T: recOutcome, ID: id, Outcome: string(store.OutcomeNotApplied), Settled: true}, true); err != nil {
		t.Fatal(err)
	}
	entries, _, err := j.List()
	if err != nil {
		t.Fatal(err)
	}
	if entries[0].Outcome != store.OutcomeApplied || entries[0].Settled || entries[0].After[string(enc("x"))] != 4 {
		t.Errorf("entry %+v; want applied as its writer said", entries[0])
	}
	if entries[1].ID != open || entries[1].Outcome != store.OutcomeUnknown {
		t.Errorf("entry without an outcome: %+v", entries[1])
	}
	if !j.inFlight(entries[1]) {
		t.Error("this process's own write without an outcome is not in flight")
	}
}

// TestSettlementOverUnknown: a writer that lost its answer says
// "unknown"; a settlement after it decides, and the entry is not in
// flight even while its writer lives (it gave up waiting).
func TestSettlementOverUnknown(t *testing.T) {
	j := openIn(t, t.TempDir(), "file:u.db", 0)
	id := write(t, j, store.PendingWrite{Kind: "commit", Keys: [][]byte{enc("x")}}, store.WriteResult{Outcome: store.OutcomeUnknown}, "")
	entries, _, _ := j.List()
	if entries[0].Outcome != store.OutcomeUnknown || j.inFlight(entries[0]) {
		t.Fatalf("entry %+v; in flight %v", entries[0], j.inFlight(entries[0]))
	}
	if err := j.writeRecord(record{T: recOutcome, ID: id, Outcome: string(store.OutcomeNotApplied), Settled: true}, true); err != nil {
		t.Fatal(err)
	}
	entries, _, _ = j.List()
	if entries[0].Outcome != store.OutcomeNotApplied || !entries[0].Settled {
		t.Fatalf("after the settlement: %+v", entries[0])
	}
}
