package tui

import (
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/codec"
	"kvdeck/internal/journal"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// journaled runs the TUI (120x40) over a copy of the reference store whose writes
// are journaled (as the CLI attaches the journal), in a state directory
// of the test's own; it returns the store's path for a second writer.
func journaled(t *testing.T) (*app, string) {
	t.Helper()
	return journaledAt(t, 120, 40, journal.Options{Dir: t.TempDir()})
}

// journaledAt is journaled at w x h with the journal's options.
func journaledAt(t *testing.T, w, h int, opts journal.Options, seed ...func(*store.Store)) (*app, string) {
	t.Helper()
	s, path, clock, _ := journaledStore(t, opts, nil, seed...)
	return start(t, s, clock, w, h, time.Hour), path
}

// journaledStore is a copy of the reference store on the fixed clock,
// with rows written by before (not journaled), then journaled by a
// journal of opts, then seed's writes.
func journaledStore(t *testing.T, opts journal.Options, before func(*store.Store), seed ...func(*store.Store)) (*store.Store, string, *store.VirtualClock, *journal.Journal) {
	t.Helper()
	path := storetest.CopyReference(t)
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, path, clock, false)
	if before != nil {
		before(s)
	}
	j, err := journal.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	s.SetRecorder(j)
	for _, f := range seed {
		f(s)
	}
	return s, path, clock, j
}

// steadyJournal is a journal whose times and IDs are the same on every
// run (a minute apart, counted), for screens compared with goldens.
func steadyJournal(t *testing.T) journal.Options {
	t.Helper()
	var n, ids atomic.Int64
	t0 := time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)
	return journal.Options{Dir: t.TempDir(),
		Now:   func() time.Time { return t0.Add(time.Duration(n.Add(1)) * time.Minute) },
		NewID: func() string { return fmt.Sprintf("a%07d", ids.Add(1)) }}
}

// seedActions journals 14 actions on s as commands would: twelve sets,
// an undo of the last, and a load of 1,200 keys in two commits (one
// action).
func seedActions(t *testing.T, j **journal.Journal) func(*store.Store) {
	t.Helper()
	return func(s *store.Store) {
		ctx := viewtest.Ctx
		for i := range 12 {
			k := codec.Key{codec.String("notes"), codec.Number(float64(i))}
			if _, err := s.Set(store.WithWriteOp(ctx, "set"), k, []byte(fmt.Sprintf(`{"n":%d}`, i)), nil); err != nil {
				t.Fatal(err)
			}
		}
		jj := journal.Of(s)
		*j = jj
		p, err := jj.PlanUndo(ctx, s, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := jj.Undo(ctx, s, p); err != nil {
			t.Fatal(err)
		}
		load := store.WithWriteOp(ctx, "load")
		for lo := 0; lo < 1200; lo += 600 {
			var sets []store.Mutation
			for i := lo; i < lo+600; i++ {
				sets = append(sets, store.Mutation{Type: store.MutationSet, Key: codec.Key{codec.String("bulk"), codec.Number(float64(i))}, Value: []byte(`1`)})
			}
			if _, err := s.SetMany(load, sets); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// tempPath is the end of a temporary copy's path in the status bar (a
// wide one shows its random directory).
var tempPath = regexp.MustCompile(`…[^ │]*/public-reference\.db`)

// TestUndoListGolden: the z list at 120x40, 80x24 and 60x18: one line per action
// (the load's two commits are one), newest first, the selected action's
// keys and outcome below; G pages to the oldest; enter on the load
// previews its undo, lines wrapped under their key keep their indent.
func TestUndoListGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}, {60, 18}} {
		for _, step := range []string{"list", "oldest", "preview"} {
			t.Run(fmt.Sprintf("%s_%dx%d", step, sz.w, sz.h), func(t *testing.T) {
				var j *journal.Journal
				a, _ := journaledAt(t, sz.w, sz.h, steadyJournal(t), seedActions(t, &j))
				a.keys("z")
				a.waitFor("UNDO", "load")
				switch step {
				case "oldest":
					a.keys("G")
					a.waitFor(`["notes", 0]`)
				case "preview":
					a.keys("enter")
					a.waitFor("PREVIEW", "Per key")
				}
				golden.RequireEqual(t, tempPath.ReplaceAllString(a.final().View(), "…reference.db"))
			})
		}
	}
}

// TestUndoOverlay: a delete made in Browse is listed by z (newest first,
// with its op, key and outcome); enter previews the inverse (no row now →
// the value it had), enter asks, y puts the row back. A second writer
// that changes the key between the preview and the answer makes the
// undo refuse: nothing is written, and the refusal names the key, its
// stamp and its value now; the preview read again marks the key.
func TestUndoOverlay(t *testing.T) {
	a, path := journaled(t)
	globex := `["accounts", "globex"]`
	was := a.value(globex)
	// shown is a text the entry pane draws once the jump has landed:
	// keys typed right after :goto's enter can reach the row before.
	deleteGlobex := func(shown string) {
		a.command("goto " + globex)
		a.waitFor(shown)
		a.keys("d")
		a.waitFor("Delete this key?")
		a.keys("y")
		a.waitFor("deleted " + globex)
	}
	deleteGlobex("026163636f756e74730002676c6f62657800")

	a.keys("z")
	a.waitFor("UNDO · the write journal", "browse: delete", globex, "applied")
	a.keys("enter")
	a.waitFor("UNDO · PREVIEW", "(no row) → "+strings.ReplaceAll(was, " ", ""))
	a.keys("enter")
	a.waitFor("Puts back 1 key(s)", "y undo")
	if a.value(globex) != "<absent>" {
		t.Fatal("the undo wrote before it was confirmed")
	}
	a.keys("y")
	// One wait: the flash and the list's new "undoes" entry can come in
	// one frame, and a wait consumes what it read.
	a.waitFor("undone ", "1 key put back at stamp", "undo         undo ")
	if got := a.value(globex); got != was {
		t.Fatalf("globex after the undo = %s, want %s", got, was)
	}
	a.keys("esc", "r") // the test's refresh is hourly: Browse reloads by hand
	a.waitFor(`"globex" ●`)

	// The refusal: another writer between the preview and the answer.
	e, _, err := a.s.Get(viewtest.Ctx, storetest.Key(t, globex))
	if err != nil {
		t.Fatal(err)
	}
	deleteGlobex("stamp   " + e.Versionstamp())
	a.keys("z")
	a.waitFor("browse: delete")
	a.keys("enter")
	a.waitFor("UNDO · PREVIEW", "(no row) → ")
	other := storetest.Open(t, path, store.Options{})
	if _, err := other.Set(viewtest.Ctx, storetest.Key(t, globex), []byte(`{"by":"another writer"}`), nil); err != nil {
		t.Fatal(err)
	}
	a.keys("enter")
	a.waitFor("Puts back 1 key(s)")
	a.keys("y")
	// One wait: the flash and the preview's conflict can come in one frame.
	a.waitFor("refused, nothing was written", "✗ changed since the action", "is at stamp", `{"by":"another writer"}`)
	if got := a.value(globex); got != `{"by":"another writer"}` {
		t.Fatalf("globex after a refused undo = %s", got)
	}
	a.keys("enter") // refused at once now: the preview knows
	checkRefusedPreview(t, a.final(), globex)
}

// checkRefusedPreview: after an undo of key was refused (another writer
// set it), m shows the preview again with the one conflict, no dialog,
// the flash names the key, its stamp and value, and the help offers no
// enter.
func checkRefusedPreview(t *testing.T, m model, key string) {
	t.Helper()
	if m.undo() == nil || m.undo().plan == nil || len(m.undo().plan.Conflicts) != 1 || m.dialog() != nil {
		t.Fatalf("the preview after the refusal: %+v, dialog open %v", m.undo(), m.dialog() != nil)
	}
	if !strings.Contains(m.flash.msg.Text, `(value {"by":"another writer"})`) || !strings.Contains(m.flash.msg.Text, key+" is at stamp") {
		t.Fatalf("the refusal does not name the key, its stamp and value: %q", m.flash.msg.Text)
	}
	// A preview that would be refused offers esc only, not enter.
	for _, b := range m.undoHelp() {
		if b.Help().Key == "enter" {
			t.Errorf("the refused preview's help offers %q", b.Help().Desc)
		}
	}
}

// TestUndoOff: z says why it is off, in read-only mode and when the
// session's writes are not journaled; help does not offer it then.
func TestUndoOff(t *testing.T) {
	for _, c := range []struct {
		readOnly bool
		why      string
	}{{true, "z (undo) is off: the store was opened with --read-only"}, {false, "z (undo) is off: this session's writes are not journaled"}} {
		t.Run(fmt.Sprint("read-only=", c.readOnly), func(t *testing.T) {
			a := reference(t, c.readOnly, 120, 40)
			a.keys("z")
			a.waitFor(c.why)
			m := a.final()
			if m.undo() != nil || m.keys.Undo.Enabled() {
				t.Errorf("overlay open %v, z in help %v", m.undo() != nil, m.keys.Undo.Enabled())
			}
		})
	}
}

// TestFlowBulkIsOneAction: a bulk delete of 250 keys in three commits is
// one action of the journal (three before, each undone by its own round
// of keys), and one z undo puts all 250 back.
func TestFlowBulkIsOneAction(t *testing.T) {
	s, _, clock, j := journaledStore(t, journal.Options{Dir: t.TempDir()}, func(s *store.Store) { seedRows(t, s, 250) })
	a := runSmallCommits(t, s, clock)
	askBulkDelete(a, 250, "in 3 checked atomic commits")
	a.keys("y")
	a.waitFor("delete: 250 of 250 done in 3 of 3 commits")
	h, _, err := j.History()
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Actions) != 1 || h.Actions[0].Op != "bulk: delete" || len(h.Actions[0].Entries) != 3 {
		t.Fatalf("%d actions; want one bulk delete of 3 writes", len(h.Actions))
	}
	a.keys("z")
	a.waitFor("bulk: delete", "3 write(s) · 250 key(s)")
	a.keys("enter")
	a.waitFor("PREVIEW", "Per key")
	a.keys("enter")
	a.waitFor("Puts back 250 key(s)")
	a.keys("y")
	a.waitFor("250 keys put back")
	a.final()
	if n := countRows(t, s); n != 250 {
		t.Fatalf("%d rows after the undo; want 250", n)
	}
}

// TestPreviewWrapKeepsIndent: a preview line under its key that wraps
// keeps the key's indent on every line (the continuation started at the
// margin before), and a field's continuation starts under its value (it
// started under the label).
func TestPreviewWrapKeepsIndent(t *testing.T) {
	lines := indented("value   "+strings.Repeat("word ", 20)+"→ (no row: deleted)", lipgloss.NewStyle(), 30)
	if len(lines) < 3 {
		t.Fatalf("%d lines; want it wrapped", len(lines))
	}
	for i, l := range lines {
		indent := "  "
		if i > 0 {
			indent = strings.Repeat(" ", 2+8) // under the value
		}
		if !strings.HasPrefix(l, indent) || len([]rune(l)) > 30 {
			t.Errorf("line %q: want %d cells of indent within 30", l, len(indent))
		}
	}
}

// TestUndoListWithoutJournal: a --no-journal session says so in the
// status bar and z lists the store's journal (as undo --list reads it)
// read-only: the title says undo is off, and enter says why it does not
// preview. z only said undo was off, and nothing said so before it.
func TestUndoListWithoutJournal(t *testing.T) {
	dir := t.TempDir()
	var j *journal.Journal
	s, path, clock, _ := journaledStore(t, journal.Options{Dir: dir}, nil, seedActions(t, &j))
	s.SetRecorder(nil) // this session journals nothing
	m := testModel(s, clock, time.Hour)
	m.cfg.JournalOff = true
	m.cfg.ReadJournal = func(url string) (*journal.Journal, error) { return journal.Open(url, journal.Options{Dir: dir}) }
	m.keys.Undo.SetEnabled(m.undoKeyOn())
	if s.Info().Display != "file:"+path && s.Info().Display != path {
		t.Logf("the store shows as %s", s.Info().Display)
	}
	a := run(t, m, 120, 40, "NO JOURNAL")
	a.keys("z")
	a.waitFor("read-only: undo is off", "load · ", "not this session")
	a.keys("enter")
	a.waitFor("the list is read-only")
	fm := a.final()
	if u := fm.undo(); u == nil || u.previewing() || len(u.actions) != 14 {
		t.Fatalf("the list: %+v", u)
	}
	for _, b := range fm.undoHelp() {
		if b.Help().Key == "enter" || b.Help().Key == "R" {
			t.Errorf("the read-only list's help offers %s %s", b.Help().Key, b.Help().Desc)
		}
	}
}

// TestUndoReleaseGivesKvdeckItsLease: a lease acquired (n) and released
// (d) in this session, then the release undone (z): the preview says the
// lease is kvdeck's own again, and d on it releases it instead of
// refusing a lease kvdeck "did not acquire" (its stamp was new).
func TestUndoReleaseGivesKvdeckItsLease(t *testing.T) {
	a, _ := journaled(t)
	a.keys("2")
	a.waitFor("LEASES")
	a.keys("n")
	a.waitFor("ACQUIRE A LEASE AS KVDECK")
	a.keys("end", "ctrl+u")
	a.tm.Type(`["dwk_lease", "Own", "x1"]`)
	a.keys("tab", "ctrl+u")
	a.tm.Type("10m")
	a.keys("enter")
	a.waitFor(`acquired ["dwk_lease", "Own", "x1"]`)
	a.keys("d")
	a.waitFor("Release this lease?")
	a.keys("y")
	a.waitFor(`released ["dwk_lease", "Own", "x1"]`)
	a.keys("z")
	a.waitFor("leases: release")
	a.keys("enter")
	a.waitFor("Not for kvdeck", "is its own lease")
	a.keys("enter")
	a.waitFor("Undo ")
	a.keys("y")
	a.waitFor("put back")
	a.keys("esc", "r")
	a.keys("/")
	a.tm.Type("Own")
	a.keys("enter")
	a.waitFor("★")
	a.keys("d")
	a.waitFor("Release this lease?")
	a.keys("y")
	a.waitFor(`released ["dwk_lease", "Own", "x1"]`)
	a.final()
	if got := a.value(`["dwk_lease", "Own", "x1"]`); got != "<absent>" {
		t.Fatalf("the lease is still there: %s", got)
	}
}
