package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

// TestRollbackJournalMarkGolden: a rollback-journal store (the
// reference's file) is marked in the status bar, in the longest form the
// screen has room for, with the key that explains it.
func TestRollbackJournalMarkGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}, {60, 18}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			a := reference(t, false, sz.w, sz.h, "rollback journal")
			golden.RequireEqual(t, a.final().View())
		})
	}
}

// TestRollbackJournalMarkForms: the mark's long form where the database
// name keeps its room, shorter ones where not, one steady item either
// way (the status bars at 120, 80 and 60 columns, on a clock that is not
// fixed, after the database name); a WAL file has none.
func TestRollbackJournalMarkForms(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, storetest.CopyReference(t), clock, false)
	m := newModel(s, Config{Clock: store.NewVirtualClock(nil), Refresh: time.Second}, themes.NewStyles(themes.Mono()), func(string) error { return nil })
	var bars []string
	for _, c := range []struct {
		w    int
		want string
	}{{120, "rollback journal: reads can fail the service's commits (? explains)"}, {80, "rollback journal (? explains)"}, {60, "rollback journal ?"}} {
		m.setSize(c.w, 40)
		bar := ansi.Strip(m.statusBar())
		if !strings.Contains(bar, "│ "+c.want+" │") || strings.Count(bar, "rollback journal") != 1 {
			t.Errorf("%d columns: %q, want the mark %q once", c.w, bar, c.want)
		}
		_, rest, _ := strings.Cut(bar, "│") // the database is a temporary file
		bars = append(bars, rest)
	}
	golden.RequireEqual(t, strings.Join(bars, "\n")+"\n")
	wal := viewtest.Open(t, storetest.CopyReference(t), clock, false)
	if _, err := wal.SetJournalMode(storetest.Ctx(t), store.JournalWAL); err != nil {
		t.Fatal(err)
	}
	wal.Close()
	wal = viewtest.Open(t, wal.Info().Display, clock, false)
	m = newModel(wal, Config{Clock: clock, Refresh: time.Hour}, themes.NewStyles(themes.Mono()), func(string) error { return nil })
	m.setSize(160, 40)
	if bar := ansi.Strip(m.statusBar()); strings.Contains(bar, "rollback") {
		t.Errorf("a WAL file is marked: %q", bar)
	}
}

// TestRollbackJournalExplainedAndUndone: ? explains the mark first
// thing (what it costs, what WAL changes, the command that switches);
// the switch made meanwhile (`kvdeck wal`, into this store's journal)
// is listed by z as the setting it changed, previewed and undone from
// the TUI (asking first), and redone (R): the mark follows the store's
// mode.
func TestRollbackJournalExplainedAndUndone(t *testing.T) {
	a, _ := journaled(t)
	a.keys("?")
	a.waitFor("HELP", "Rollback journal. This file is in rollback-journal mode", "kvdeck wal --db")
	a.keys("esc")
	if _, err := a.s.SetJournalMode(store.WithWriteOp(storetest.Ctx(t), "wal"), store.JournalWAL); err != nil {
		t.Fatal(err)
	}
	a.keys("z")
	a.waitFor("UNDO · the write journal", "journal_mode → wal", "applied", "setting journal_mode rollback → wal")
	a.keys("enter")
	a.waitFor("UNDO · PREVIEW", "journal_mode", "wal → rollback")
	a.keys("enter")
	a.waitFor("Sets journal_mode of", "y undo")
	a.keys("y")
	a.waitFor("journal_mode is rollback again", "takes back ") // the list read again
	if a.s.JournalMode() != store.JournalRollback {
		t.Fatalf("after the undo the store is in %s mode", a.s.JournalMode())
	}
	a.keys("j") // the switch, now undone
	a.waitFor("setting journal_mode rollback → wal")
	a.keys("R") // its redo
	a.waitFor("REDO · PREVIEW", "rollback → wal")
	a.keys("enter")
	a.waitFor("Sets journal_mode of", "y redo")
	a.keys("y")
	a.waitFor("journal_mode is wal again")
	a.keys("esc")
	m := a.final()
	if bar := ansi.Strip(m.statusBar()); m.store.JournalMode() != store.JournalWAL || strings.Contains(bar, "rollback") {
		t.Errorf("after the redo: mode %s, status bar %q", m.store.JournalMode(), bar)
	}
}
