package journal

import (
	"path/filepath"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// rollbackStore is a reference-made rollback-journal file, opened with j
// attached.
func rollbackStore(t *testing.T, j *Journal) *store.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kv.db")
	storetest.SeedRollbackJournal(t, path, 5)
	s := storetest.Open(t, path, store.Options{})
	if j != nil {
		s.SetRecorder(j)
	}
	return s
}

// lastAction is the journal's newest action.
func lastAction(t *testing.T, j *Journal) (History, Action) {
	t.Helper()
	h, notes, err := j.History()
	if err != nil || len(notes) != 0 || len(h.Actions) == 0 {
		t.Fatalf("history %+v, notes %v, %v", h, notes, err)
	}
	return h, h.Actions[len(h.Actions)-1]
}

// TestSettingUndoToggles: a switch to WAL on a real file is one action
// of one write with its setting and no key; the default undo picks it
// (its plan sets the mode back, and its preview says so), undo switches
// back as an action of its own, redo switches again, and undo again;
// rows are untouched throughout.
func TestSettingUndoToggles(t *testing.T) {
	ctx := storetest.Ctx(t)
	j := openIn(t, t.TempDir(), "file:set.db", 0)
	s := rollbackStore(t, j)
	if _, err := s.Set(store.WithWriteOp(ctx, "set"), key("k"), []byte("1"), nil); err != nil {
		t.Fatal(err)
	}
	if changed, err := s.SetJournalMode(store.WithWriteOp(ctx, "wal"), store.JournalWAL); err != nil || !changed {
		t.Fatalf("switch: %v %v", changed, err)
	}
	h, a := lastAction(t, j)
	want := store.SettingChange{Name: store.SettingJournalMode, From: "rollback", To: "wal"}
	if len(h.Actions) != 2 || a.Op != "wal" || len(a.Entries) != 1 || a.Entries[0].Kind != "journal-mode" || a.KeyCount != 0 ||
		len(a.Settings()) != 1 || a.Settings()[0] != want || h.Undoable(a) != nil {
		t.Fatalf("action %+v, settings %+v, undoable: %v", a, a.Settings(), h.Undoable(a))
	}
	wal := a.ID
	for round, step := range []struct {
		redo bool
		to   store.JournalMode
	}{{false, store.JournalRollback}, {true, store.JournalWAL}, {false, store.JournalRollback}} {
		plan := j.PlanUndo
		if step.redo {
			plan = j.PlanRedo
		}
		p, err := plan(ctx, s, "")
		if err != nil || p.Action.ID != wal || len(p.Ops) != 0 || len(p.Conflicts) != 0 || len(p.Settings) != 1 ||
			p.Settings[0].Change.To != string(step.to) || p.Settings[0].Now == string(step.to) {
			t.Fatalf("round %d: plan %+v, %v", round, p, err)
		}
		if notes := strings.Join(PlanNotes(p), " "); !strings.Contains(notes, "sets journal_mode back from "+p.Settings[0].Change.From+" to "+string(step.to)) {
			t.Errorf("round %d: notes %q", round, notes)
		}
		res, err := j.Undo(ctx, s, p)
		if err != nil || !res.OK || res.Action == "" || len(res.Set) != 1 || s.JournalMode() != step.to || storetest.JournalMode(t, s.Info().Display[len("file:"):]) != map[store.JournalMode]string{store.JournalWAL: "wal", store.JournalRollback: "delete"}[step.to] {
			t.Fatalf("round %d: undo %+v, %v; the mode is %s, want %s", round, res, err, s.JournalMode(), step.to)
		}
		h, last := lastAction(t, j)
		if last.ID != res.Action || last.Undoes == "" || h.Root(last).ID != wal || h.Undone(h.Root(last)) == step.redo {
			t.Fatalf("round %d: the undo's action %+v (root %s)", round, last, h.Root(last).ID)
		}
	}
	if e, found, err := s.Get(ctx, key("k")); err != nil || !found || string(e.Value) != "1" {
		t.Errorf("the row: %+v %v %v", e, found, err)
	}
}

// TestSettingUndoRefusedWhenChangedSince: when the mode was switched
// again outside the journal, the plan names the conflict and the undo is
// refused, nothing changed and nothing journaled.
func TestSettingUndoRefusedWhenChangedSince(t *testing.T) {
	ctx := storetest.Ctx(t)
	j := openIn(t, t.TempDir(), "file:c.db", 0)
	s := rollbackStore(t, j)
	if _, err := s.SetJournalMode(store.WithWriteOp(ctx, "wal"), store.JournalWAL); err != nil {
		t.Fatal(err)
	}
	s.SetRecorder(nil)
	if _, err := s.SetJournalMode(ctx, store.JournalRollback); err != nil {
		t.Fatal(err)
	}
	s.SetRecorder(j)
	p, err := j.PlanUndo(ctx, s, "")
	if err != nil || len(p.Conflicts) != 1 || p.Conflicts[0].Setting == nil || p.Conflicts[0].Text() != "journal_mode is rollback now; the action left it wal" {
		t.Fatalf("plan %+v, %v", p, err)
	}
	res, err := j.Undo(ctx, s, p)
	if err != nil || res.OK || len(res.Conflicts) != 1 || res.Action != "" || s.JournalMode() != store.JournalRollback {
		t.Errorf("undo after the change: %+v, %v (mode %s)", res, err, s.JournalMode())
	}
	if h, _, _ := j.History(); len(h.Actions) != 1 {
		t.Errorf("the refused undo was journaled: %+v", h.Actions)
	}
}

// TestSettleSetting: a setting's write without an outcome (its process
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
		url := "file:settle-" + string(c.want) + ".db"
		dead := openIn(t, dir, url, 0)
		s := rollbackStore(t, nil)
		id, err := dead.Before(ctx, store.PendingWrite{Op: "wal", Kind: "journal-mode", Action: store.NewAction("wal"),
			Setting: &store.SettingChange{Name: store.SettingJournalMode, From: "rollback", To: "wal"}})
		if err != nil {
			t.Fatal(err)
		}
		if c.switched {
			if _, err := s.SetJournalMode(ctx, store.JournalWAL); err != nil {
				t.Fatal(err)
			}
		}
		j := openIn(t, dir, url, 0) // another process's Journal
		if err := j.Settle(ctx, s); err != nil {
			t.Fatal(err)
		}
		h, a := lastAction(t, j)
		e := a.Entries[0]
		if len(h.Actions) != 1 || e.ID != id || e.Outcome != c.want || !e.Settled || e.BeforeUnknown || !strings.Contains(e.Why, "journal_mode is") {
			t.Fatalf("switched %v: %+v", c.switched, e)
		}
		if c.switched && h.Undoable(a) != nil {
			t.Errorf("a settled switch is not undoable: %v", h.Undoable(a))
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
