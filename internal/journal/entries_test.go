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
// outcome; undoes tags it as an undo of that entry.
func write(t *testing.T, j *Journal, w store.PendingWrite, r store.WriteResult, undoes string) string {
	t.Helper()
	ctx := context.Background()
	if undoes != "" {
		ctx = context.WithValue(ctx, undoKey{}, undoes)
	}
	id, err := j.Before(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	j.After(ctx, id, r)
	return id
}

func key(s string) codec.Key { return codec.Key{codec.String(s)} }
func enc(s string) []byte    { return codec.MustEncode(key(s)) }

// TestAfterAndDefault: what each kind of write leaves (its stamp for a
// key it set, 0 for a row it removed, nothing for a key it deleted that
// had no row), and the default target: the newest applied entry that
// changed a row and is not undone; an undo is such an entry, so the
// default toggles.
func TestAfterAndDefault(t *testing.T) {
	j := openIn(t, t.TempDir(), "file:a.db", 0)
	a := write(t, j, store.PendingWrite{Op: "atomic", Kind: "commit", Keys: [][]byte{enc("x"), enc("y"), enc("z")},
		Mutations: []store.Mutation{{Type: store.MutationSet, Key: key("x"), Value: []byte("1")}, {Type: store.MutationDelete, Key: key("y")}, {Type: store.MutationDelete, Key: key("z")}}},
		store.WriteResult{Outcome: store.OutcomeApplied, Stamp: codec.FormatStamp(5), Before: []store.RawRow{{Key: enc("y"), Value: []byte("2"), Ver: 3}}}, "")
	sw := write(t, j, store.PendingWrite{Op: "sweep", Kind: "sweep", Keys: [][]byte{enc("p"), enc("q")}},
		store.WriteResult{Outcome: store.OutcomeApplied, Before: []store.RawRow{{Key: enc("p"), Value: []byte("3"), Ver: 2}}}, "")
	nothing := write(t, j, store.PendingWrite{Op: "delete", Kind: "delete", Keys: [][]byte{enc("n")}, Mutations: []store.Mutation{{Type: store.MutationDelete, Key: key("n")}}},
		store.WriteResult{Outcome: store.OutcomeApplied}, "")
	failed := write(t, j, store.PendingWrite{Op: "atomic", Kind: "commit", Keys: [][]byte{enc("x")}, Mutations: []store.Mutation{{Type: store.MutationSet, Key: key("x"), Value: []byte("9")}}},
		store.WriteResult{Outcome: store.OutcomeNotApplied}, "")
	entries, _, err := j.List()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Entry{}
	for _, e := range entries {
		byID[e.ID] = e
	}
	if got := byID[a].After; len(got) != 2 || got[string(enc("x"))] != 5 || got[string(enc("y"))] != 0 {
		t.Errorf("atomic After %v; want x:5, y:0 and not z", got)
	}
	if got := byID[sw].After; len(got) != 1 || got[string(enc("p"))] != 0 {
		t.Errorf("sweep After %v; want p:0", got)
	}
	if err := Undoable(byID[nothing], entries); !errors.Is(err, ErrNotUndoable) || !strings.Contains(err.Error(), "changed no row") {
		t.Errorf("delete of an absent key: %v", err)
	}
	if err := Undoable(byID[failed], entries); !errors.Is(err, ErrNotUndoable) || !strings.Contains(err.Error(), "not applied") {
		t.Errorf("failed commit: %v", err)
	}
	// The default skips the entries that changed nothing.
	if e, err := pick(entries, ""); err != nil || e.ID != sw {
		t.Fatalf("default %s %v; want the sweep %s", e.ID, err, sw)
	}
	// An undo of the sweep (by hand): the default becomes that undo, and
	// the sweep reads as undone.
	u1 := write(t, j, store.PendingWrite{Op: "undo " + sw, Kind: "restore", Keys: [][]byte{enc("p")},
		Restores: []store.RestoreOp{{Key: enc("p"), ExpectVer: 0, Put: &store.RawRow{Key: enc("p"), Value: []byte("3"), Ver: 2}}}},
		store.WriteResult{Outcome: store.OutcomeApplied, Stamp: codec.FormatStamp(6)}, sw)
	entries, _, _ = j.List()
	if e, _ := pick(entries, ""); e.ID != u1 || e.Undoes != sw {
		t.Fatalf("default after an undo: %+v; want %s", e, u1)
	}
	for _, e := range entries {
		if e.ID == sw {
			if e.UndoneBy != u1 {
				t.Errorf("sweep UndoneBy %q; want %s", e.UndoneBy, u1)
			}
			if err := Undoable(e, entries); err == nil || !strings.Contains(err.Error(), "undo "+u1+" to redo") {
				t.Errorf("undo of an undone entry: %v", err)
			}
		}
		if e.ID == u1 && (len(e.After) != 1 || e.After[string(enc("p"))] != 6) {
			t.Errorf("undo After %v; want p:6", e.After)
		}
	}
	// By a unique prefix; an unknown ID is ErrNoEntry.
	if e, err := pick(entries, a[:5]); err != nil || e.ID != a {
		t.Errorf("prefix %s: %s %v", a[:5], e.ID, err)
	}
	if _, err := pick(entries, "nope-nope"); !errors.Is(err, ErrNoEntry) {
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
	if err := j.writeRecord(record{T: recOutcome, ID: id, Outcome: string(store.OutcomeNotApplied), Settled: true}); err != nil {
		t.Fatal(err)
	}
	j.After(context.Background(), id, store.WriteResult{Outcome: store.OutcomeApplied, Stamp: codec.FormatStamp(4)})
	if err := j.writeRecord(record{T: recOutcome, ID: id, Outcome: string(store.OutcomeNotApplied), Settled: true}); err != nil {
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
