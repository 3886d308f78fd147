package journal

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// rollbackStore is a reference-made rollback-journal file, opened with j
// attached.
func rollbackStore(t *testing.T, j *Journal) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kv.db")
	storetest.SeedRollbackJournal(t, path, 5)
	s := storetest.Open(t, path, store.Options{})
	if j != nil {
		s.SetRecorder(j)
	}
	return s, path
}

// TestSettingUndoToggles: a switch to WAL on a real file is one entry
// with its setting and no key; the default undo picks it, previews the
// mode now and what the undo sets, and switches back (an entry that
// undoes it); undoing that redoes. Rows are untouched throughout.
func TestSettingUndoToggles(t *testing.T) {
	ctx := storetest.Ctx(t)
	j := openIn(t, t.TempDir(), "file:set.db", 0)
	s, _ := rollbackStore(t, j)
	if _, err := s.Set(store.WithWriteOp(ctx, "set"), key("k"), []byte("1"), nil); err != nil {
		t.Fatal(err)
	}
	if changed, err := s.SetJournalMode(store.WithWriteOp(ctx, "wal"), store.JournalWAL); err != nil || !changed {
		t.Fatalf("switch: %v %v", changed, err)
	}
	entries, notes, err := j.List()
	if err != nil || len(notes) != 0 || len(entries) != 2 {
		t.Fatalf("entries %+v, notes %v, %v", entries, notes, err)
	}
	e := entries[1]
	want := store.SettingChange{Name: store.SettingJournalMode, From: "rollback", To: "wal"}
	if e.Op != "wal" || e.Kind != "journal-mode" || e.Setting == nil || *e.Setting != want || len(e.Keys) != 0 ||
		e.Outcome != store.OutcomeApplied || Undoable(e, entries) != nil {
		t.Fatalf("entry %+v (setting %+v), undoable: %v", e, e.Setting, Undoable(e, entries))
	}
	for round, to := range []store.JournalMode{store.JournalRollback, store.JournalWAL, store.JournalRollback} {
		p, err := j.PlanUndo(ctx, s, "")
		if err != nil || p.Setting == nil || len(p.Ops) != 0 || p.Setting.Change.To != string(to) || p.Setting.Now == string(to) ||
			p.Setting.Conflict() != "" {
			t.Fatalf("round %d: plan %+v (setting %+v), %v", round, p, p.Setting, err)
		}
		res, err := j.Undo(ctx, s, p)
		if err != nil || !res.OK || s.JournalMode() != to {
			t.Fatalf("round %d: undo %+v, %v; the mode is %s, want %s", round, res, err, s.JournalMode(), to)
		}
		entries, _, _ := j.List()
		last := entries[len(entries)-1]
		if last.Undoes != p.Entry.ID || last.Setting == nil || last.Setting.To != string(to) || last.Op != "undo "+p.Entry.ID {
			t.Fatalf("round %d: the undo's entry %+v (setting %+v)", round, last, last.Setting)
		}
	}
	if e, found, err := s.Get(ctx, key("k")); err != nil || !found || string(e.Value) != "1" {
		t.Errorf("the row: %+v %v %v", e, found, err)
	}
}

// TestSettingUndoRefusedWhenChangedSince: when the mode was switched
// again outside the journal, the plan names the conflict and the undo is
// refused, nothing changed.
func TestSettingUndoRefusedWhenChangedSince(t *testing.T) {
	ctx := storetest.Ctx(t)
	j := openIn(t, t.TempDir(), "file:c.db", 0)
	s, _ := rollbackStore(t, j)
	if _, err := s.SetJournalMode(ctx, store.JournalWAL); err != nil {
		t.Fatal(err)
	}
	s.SetRecorder(nil)
	if _, err := s.SetJournalMode(ctx, store.JournalRollback); err != nil {
		t.Fatal(err)
	}
	s.SetRecorder(j)
	p, err := j.PlanUndo(ctx, s, "")
	if err != nil || p.Setting == nil || !strings.Contains(p.Setting.Conflict(), "journal_mode is rollback now; the write left it wal") {
		t.Fatalf("plan %+v (setting %+v), %v", p, p.Setting, err)
	}
	if _, err := j.Undo(ctx, s, p); !errors.Is(err, ErrNotUndoable) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("undo after the change: %v", err)
	}
	if s.JournalMode() != store.JournalRollback {
		t.Errorf("mode %s", s.JournalMode())
	}
	if entries, _, _ := j.List(); len(entries) != 1 {
		t.Errorf("the refused undo was journaled: %+v", entries)
	}
}

// TestSettleSetting: a setting's entry without an outcome (its process
// died) is settled by the setting as it reads: applied (and undoable:
// the value before is in the intent) when it holds the entry's value,
// not applied when it holds the one before.
func TestSettleSetting(t *testing.T) {
	ctx := storetest.Ctx(t)
	dir := t.TempDir()
	for _, c := range []struct {
		switched bool
		want     store.Outcome
	}{{true, store.OutcomeApplied}, {false, store.OutcomeNotApplied}} {
		dead := openIn(t, dir, "file:settle-"+string(c.want)+".db", 0)
		s, _ := rollbackStore(t, nil)
		id, err := dead.Before(ctx, store.PendingWrite{Op: "wal", Kind: "journal-mode",
			Setting: &store.SettingChange{Name: store.SettingJournalMode, From: "rollback", To: "wal"}})
		if err != nil {
			t.Fatal(err)
		}
		if c.switched {
			if _, err := s.SetJournalMode(ctx, store.JournalWAL); err != nil {
				t.Fatal(err)
			}
		}
		j := openIn(t, dir, "file:settle-"+string(c.want)+".db", 0) // another process's Journal
		if err := j.Settle(ctx, s); err != nil {
			t.Fatal(err)
		}
		entries, _, _ := j.List()
		if len(entries) != 1 || entries[0].ID != id || entries[0].Outcome != c.want || !entries[0].Settled || entries[0].BeforeUnknown {
			t.Fatalf("switched %v: %+v", c.switched, entries)
		}
		if c.switched && Undoable(entries[0], entries) != nil {
			t.Errorf("a settled switch is not undoable: %v", Undoable(entries[0], entries))
		}
	}
}

// TestSettingLineRefusesUnknowns: a line naming a setting kvdeck does not
// know, or a value it does not know, is refused (never undone blindly).
func TestSettingLineRefusesUnknowns(t *testing.T) {
	for _, s := range []settingRec{{Name: "page_size", From: "1", To: "2"}, {Name: store.SettingJournalMode, From: "rollback", To: "memory"}} {
		line, err := formatLine(record{T: recIntent, ID: "a", At: 1, Kind: "journal-mode", Setting: &s})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parseLine(line[:len(line)-1]); err == nil {
			t.Errorf("setting %+v accepted", s)
		}
	}
}
