package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/editsession"
	kvhist "kvdeck/internal/history"
	"kvdeck/internal/journal"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// The time machine's tests run the TUI over a copy of the reference
// store whose past a real kvdeck record history file holds: three
// points, each a poll that read every row of the store (as record's
// resync does), with writes between them. The history file sits beside
// the store, and the test runs in its directory, so that the source's
// name (its relative path) is the same on every machine for the goldens.

const (
	globex = `["accounts", "globex"]`
	acme   = `["accounts", "acme"]`
	added  = `["zz", "added later"]`
)

// pastFixture is the store, its recording and what was written when.
type pastFixture struct {
	s       *store.Store
	clock   *store.VirtualClock
	dir     string
	rec     *kvhist.Recording
	machine *kvhist.Machine
	// globex's value at each point.
	globex [3]string
}

// recordPoll records a point at time at: every row of s, as kvdeck
// record's resync poll gives them (a row not given is deleted).
func recordPoll(t *testing.T, rec *kvhist.Recording, s *store.Store, at int64) {
	t.Helper()
	ctx := context.Background()
	p, err := rec.Begin(ctx, at, true, false)
	if err != nil {
		t.Fatal(err)
	}
	err = s.DumpAll(ctx, nil, func(e store.Entry) error {
		return p.Set(ctx, store.RawRow{Key: e.Raw, Value: e.Value, Ver: e.Ver, ExpiresAt: e.ExpiresAt})
	})
	if err != nil {
		t.Fatal(err)
	}
	seq, err := s.Seq(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Commit(ctx, seq); err != nil {
		t.Fatal(err)
	}
}

// newPastFixture makes the store at a fixed path (journaled, as the TUI
// writes it) and its recording: point 1 the reference; then globex set
// and acme deleted, point 2; then globex set again and a key added,
// point 3 (the store as it is now, but for what the test writes after).
func newPastFixture(t *testing.T) *pastFixture {
	t.Helper()
	path := fixedReference(t)
	dir := filepath.Dir(path)
	t.Chdir(dir)
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, path, clock, false)
	rec, err := kvhist.OpenRecording("reference.history.db", "file:"+path, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rec.Close() })
	f := &pastFixture{s: s, clock: clock, dir: dir, rec: rec}
	ctx := context.Background()
	set := func(k, v string) {
		if _, err := s.Set(ctx, storetest.Key(t, k), []byte(v), nil); err != nil {
			t.Fatal(err)
		}
	}
	f.globex[0] = f.value(t, globex)
	recordPoll(t, rec, s, storetest.T0+60_000)
	f.globex[1] = `{"name":"Globex","plan":"gold","seats":12}`
	set(globex, f.globex[1])
	if err := s.Delete(ctx, storetest.Key(t, acme)); err != nil {
		t.Fatal(err)
	}
	recordPoll(t, rec, s, storetest.T0+120_000)
	f.globex[2] = `{"name":"Globex","plan":"platinum","seats":40}`
	set(globex, f.globex[2])
	set(added, `"new"`)
	recordPoll(t, rec, s, storetest.T0+180_000)
	// From here on the TUI's writes are journaled (z undoes them).
	j, err := journal.Open(path, steadyJournal(t))
	if err != nil {
		t.Fatal(err)
	}
	s.SetRecorder(j)
	f.machine = &kvhist.Machine{Source: kvhist.RecordingSource{R: rec}, Dir: restoreDir(t),
		Open: func(ctx context.Context, url, token string) (*store.Store, error) {
			return store.Open(ctx, url, store.Options{ReadOnly: true, Clock: clock.Now})
		}}
	return f
}

// restoreDir is a private directory for restores, as the CLI makes one.
func restoreDir(t *testing.T) *editsession.Session {
	t.Helper()
	d, err := editsession.OpenFor(t.TempDir(), "at")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// value is k's value in the live store ("<absent>": none).
func (f *pastFixture) value(t *testing.T, k string) string {
	t.Helper()
	e, ok, err := f.s.Get(context.Background(), storetest.Key(t, k))
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return "<absent>"
	}
	return string(e.Value)
}

// run runs the TUI on the live store with the fixture's time machine.
func (f *pastFixture) run(t *testing.T, w, h int) *app {
	t.Helper()
	m := testModel(f.s, f.clock, time.Hour)
	m.cfg.TimeMachine = func(context.Context) (*kvhist.Machine, error) { return f.machine, nil }
	return run(t, m, w, h)
}

// TestAtShowsThePast: :at poll:1 shows the store as it was at the point
// picked in every tab (read-only, AS OF in the status bar, the key added
// later absent), names the point and the next; Browse shows globex then
// and now; :at lists the points; :at now returns to the live store.
func TestAtShowsThePast(t *testing.T) {
	f := newPastFixture(t)
	a := f.run(t, 120, 40)
	a.command("at poll:1")
	a.waitFor("AS OF poll 1", "poll 1, made 2026-01-02T00:01:00.000Z · point 1 of 3")
	a.command("goto " + globex)
	a.waitFor("changed since", "then → now", `"plan":"platinum"`)
	a.command("goto " + added)
	a.waitFor(`no key ["zz", "added later"]`) // added after point 1
	a.keys("2")
	a.waitFor("LEASES  2 lease(s)")
	a.keys("1")
	a.command("at")
	a.waitFor("RESTORE POINTS", "● poll 1", "poll 3")
	a.keys("j", "enter")
	a.waitFor("AS OF poll 2", "point 2 of 3")
	a.command("at now")
	a.waitFor("back to the live store")
	m := a.final()
	if bar := m.statusBar(); strings.Contains(bar, "AS OF") || m.tm.past != nil || m.store != f.s {
		t.Fatalf("after :at now: past %v, status bar %q", m.tm.past, bar)
	}
}

// TestAtPutBack: at a point, P on globex shows then and now and asks;
// y puts it back in the live store as one journaled write, which z
// undoes; a second writer's change between the question and the answer
// is refused and nothing is written.
func TestAtPutBack(t *testing.T) {
	f := newPastFixture(t)
	a := f.run(t, 120, 40)
	a.command("at poll:1")
	a.waitFor("AS OF poll 1")
	a.command("goto " + globex)
	a.waitFor("changed since")
	a.keys("P")
	a.waitFor("Put back 1 key as at poll 1", "platinum")
	if f.value(t, globex) != f.globex[2] {
		t.Fatal("P wrote before it was confirmed")
	}
	a.keys("y")
	a.waitFor("put back 1 key as at poll 1", "z undoes it")
	if got := f.value(t, globex); got != f.globex[0] {
		t.Fatalf("globex after put-back = %s, want %s", got, f.globex[0])
	}
	// z lists the put-back on the live store's journal and undoes it.
	a.keys("z")
	a.waitFor("UNDO", "restore")
	a.keys("enter")
	a.waitFor("PREVIEW")
	a.keys("enter")
	a.waitFor("y undo")
	a.keys("y")
	a.waitFor("undone ")
	if got := f.value(t, globex); got != f.globex[2] {
		t.Fatalf("globex after the undo = %s, want %s", got, f.globex[2])
	}
	a.keys("esc")

	// Another writer changes globex while the question is open.
	a.keys("P")
	a.waitFor("Put back 1 key as at poll 1")
	if _, err := f.s.Set(context.Background(), storetest.Key(t, globex), []byte(`{"other":"writer"}`), nil); err != nil {
		t.Fatal(err)
	}
	a.keys("y")
	a.waitFor("put-back refused, nothing was written")
	if got := f.value(t, globex); got != `{"other":"writer"}` {
		t.Fatalf("globex after a refused put-back = %s", got)
	}
	// A key deleted since is put back; one as it was is left alone.
	a.command("goto " + acme)
	a.waitFor("no row now")
	a.keys(" ")
	a.command("goto " + `["accounts", "initech"]`)
	a.waitFor("as then")
	a.keys(" ", "P")
	a.waitFor("Put back 1 key as at poll 1", "= [\"accounts\", \"initech\"]")
	a.keys("y")
	a.waitFor("put back 1 key")
	if f.value(t, acme) == "<absent>" {
		t.Fatal("acme was not put back")
	}
	a.final()
}

// TestKeyHistoryOverlay: H on globex in the live store lists its three
// states (none restored: a recording), says the source and what it
// cannot know; the diff follows the cursor against the pinned state;
// r puts the first state back, asked first.
func TestKeyHistoryOverlay(t *testing.T) {
	f := newPastFixture(t)
	a := f.run(t, 120, 40)
	a.command("goto " + globex)
	a.waitFor("platinum")
	a.keys("H")
	a.waitFor("HISTORY", "3 states", "none of 3 points restored", "reference.history.db", "cannot know", "poll 2 → poll 3", ".plan")
	a.keys("k", "k", " ", "j", "j")
	a.waitFor("poll 1 → poll 3")
	a.keys("k", "k", "r")
	a.waitFor("Put back 1 key as at poll 1")
	a.keys("y")
	a.waitFor("put back 1 key as at poll 1")
	if got := f.value(t, globex); got != f.globex[0] {
		t.Fatalf("globex after r = %s, want %s", got, f.globex[0])
	}
	a.final()
}

// TestTimeMachineGolden: the past in Browse (then and now), the points
// and a key's history at 120x40, 80x24 and 60x18.
func TestTimeMachineGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}, {60, 18}} {
		for _, step := range []string{"thennow", "points", "history"} {
			t.Run(step+"_"+viewtest.Screen{W: sz.w, H: sz.h}.String(), func(t *testing.T) {
				pkg, err := os.Getwd()
				if err != nil {
					t.Fatal(err)
				}
				f := newPastFixture(t)
				a := f.run(t, sz.w, sz.h)
				a.command("at poll:1")
				a.waitFor("AS OF")
				a.command("goto " + globex)
				a.waitFor("then → now")
				switch step {
				case "points":
					a.command("at")
					a.waitFor("RESTORE POINTS")
				case "history":
					a.keys("H")
					a.waitFor("3 states")
				}
				fm := a.final()
				fm.flash.on = false // its timer races the capture: the flows check it
				view := fm.View()
				// The goldens are the package's (the fixture ran in the
				// store's directory).
				if err := os.Chdir(pkg); err != nil {
					t.Fatal(err)
				}
				golden.RequireEqual(t, view)
			})
		}
	}
}

// TestAtNamesAMalformedTime: :at with a time it cannot read names the
// time and the forms it takes, before (and whether or not) the store has
// a history; nothing is restored.
func TestAtNamesAMalformedTime(t *testing.T) {
	f := newPastFixture(t)
	m := testModel(f.s, f.clock, time.Hour)
	looked := false
	m.cfg.TimeMachine = func(context.Context) (*kvhist.Machine, error) {
		looked = true
		return nil, kvhist.ErrNoPoint
	}
	a := run(t, m, 120, 40)
	a.command("at bogus")
	a.waitFor(`"bogus": want an RFC 3339 time`)
	got := a.final()
	if looked || got.tm.past != nil || got.tm.restoring != "" {
		t.Fatalf("a malformed time looked for history (%v) or restored (%v, %q)", looked, got.tm.past, got.tm.restoring)
	}
}
