package journal

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/store"
)

// TestCompactionReadsHeadsOnly: compacting past a large action (here
// 40 writes of 2000 sets, ~7 MB) reads only each line's head and copies
// the kept lines from the file: it allocates a small part of the file's
// size (reading it whole allocated several times the file), keeps a good
// line written after a torn one on the same line, and the undo of an
// undone action goes with it (one history), said undoable or not as the
// heads tell.
func TestCompactionReadsHeadsOnly(t *testing.T) {
	dir := t.TempDir()
	j := openIn(t, dir, "file:h.db", 4<<20)
	gone := record1(t, j, 1) // an undoable set, dropped
	undone := store.NewAction("set")
	undoneID := writeIn(t, j, undone, store.PendingWrite{Op: "set", Kind: "commit",
		Mutations: []store.Mutation{{Type: store.MutationSet, Key: key("u"), Value: []byte(`1`)}}},
		store.WriteResult{Outcome: store.OutcomeApplied, Stamp: codec.FormatStamp(3)}, "")
	writeIn(t, j, store.NewAction("undo"), store.PendingWrite{Op: "undo", Kind: "restore",
		Restores: []store.RestoreOp{{Key: enc("u"), ExpectVer: 3}}},
		store.WriteResult{Outcome: store.OutcomeApplied, Stamp: codec.FormatStamp(4), Before: []store.RawRow{{Key: enc("u"), Value: []byte(`1`), Ver: 3}}}, undone.ID(nil))
	big := store.NewAction("load")
	for b := range 40 {
		muts := make([]store.Mutation, 2000)
		for i := range muts {
			muts[i] = store.Mutation{Type: store.MutationSet, Key: codec.Key{codec.String("big"), codec.Bigint(int64(b*2000 + i))}, Value: []byte(`{"n":1,"name":"item"}`)}
		}
		if b == 20 { // the next intent lands on a torn line
			f, _ := os.OpenFile(j.Path(), os.O_WRONLY|os.O_APPEND, 0)
			whole, _ := formatLine(record{T: recIntent, ID: "torn0000", Kind: "commit"})
			f.Write(whole[:len(whole)/2])
			f.Close()
		}
		writeIn(t, j, big, store.PendingWrite{Op: "load", Kind: "set-many", Mutations: muts},
			store.WriteResult{Outcome: store.OutcomeApplied, Stamp: codec.FormatStamp(int64(10 + b))}, "")
	}
	if _, notes, _ := j.List(); len(notes) != 1 {
		t.Fatalf("notes %+v; want the torn line", notes)
	}
	fi, _ := os.Stat(j.Path())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	next := record1(t, j, 100) // compacts first
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(fi.Size())/4 {
		t.Errorf("compacting a %d-byte journal allocated %d bytes", fi.Size(), alloc)
	}
	h, notes, err := j.History()
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Actions) != 2 || h.Actions[0].ID != big.ID(nil) || len(h.Actions[0].Entries) != 40 || actOf(t, h, next).Entries[0].ID != next {
		t.Fatalf("kept %d actions; want the load whole and the set after it", len(h.Actions))
	}
	if len(notes) != 0 {
		t.Errorf("notes %+v; want the torn part of a line dropped, its good line kept", notes)
	}
	for _, e := range h.Entries {
		if e.ID == gone || e.ID == undoneID {
			t.Errorf("entry %s survived compaction", e.ID)
		}
	}
	n := j.Notices()
	if len(n) != 1 || !strings.Contains(n[0], "dropped its 2 oldest action(s), 1 of them still undoable, the newest "+gone) {
		t.Errorf("notices %q; want 2 user actions dropped (with an undo), the set %s undoable, the undone one not", n, gone)
	}
}
