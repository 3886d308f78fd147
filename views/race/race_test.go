package race

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/race"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/viewtest"
)

func newRaceHarness(t *testing.T, readOnly bool) *viewtest.Harness[Model] {
	t.Helper()
	return newRaceHarnessAt(t, readOnly, 120, 40-3)
}

// newRaceHarnessAt runs the Race view at w x h (the body of the screen).
func newRaceHarnessAt(t *testing.T, readOnly bool, w, h int) *viewtest.Harness[Model] {
	t.Helper()
	s, clock, path := viewtest.Reference(t, readOnly)
	return viewtest.Start[Model, *Model](t, s, clock, w, h, New, viewtest.Reopen(path, clock))
}

// TestRaceSizes: the step theater at 120x40, 80x24 and 60x18 (the body
// is 3 lines shorter), client A selected after a read by A and B: every
// size shows both or says where the other is (60x18 said nothing of B,
// below).
func TestRaceSizes(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}, {60, 18}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			h := newRaceHarnessAt(t, false, sz.w, sz.h-3)
			h.Keys("enter", "l", "enter", "h")
			golden.RequireEqual(t, h.M.View())
		})
	}
}

// commitOutcomes lists who committed with which result, in order.
func commitOutcomes(events []race.Event) string {
	var b strings.Builder
	for _, o := range outcomes(events) {
		b.WriteString(o.Client)
		if o.OK {
			b.WriteString("+ ")
		} else {
			b.WriteString("- ")
		}
	}
	return b.String()
}

// TestRaceStepSecondCommitFailsAndReplays: A and B read, stage; A commits,
// B's commit fails and is explained (expected vs actual, written by A);
// B recovers and commits; the replay reproduces every outcome.
func TestRaceStepSecondCommitFailsAndReplays(t *testing.T) {
	h := newRaceHarness(t, false)
	t.Run("start", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	h.Keys("enter", "l", "enter", "h", "enter", "l", "enter", "h", "enter") // A read, B read, A stage, B stage, A commit…
	if len(h.Confirms) != 1 || !strings.Contains(h.Confirms[0].Title, "client A") {
		t.Fatalf("A's commit did not ask first: %+v", h.Confirms)
	}
	h.Confirm()
	h.Keys("l", "enter") // … B commit
	h.Confirm()
	view := h.M.View()
	for _, want := range []string{"WHY B'S COMMIT FAILED", "expected absent (what B read)", "written by A in between"} {
		if !strings.Contains(view, want) {
			t.Fatalf("the view lacks %q:\n%s", want, view)
		}
	}
	t.Run("conflict", func(t *testing.T) { golden.RequireEqual(t, view) })
	h.Keys("enter", "enter") // B recovers, then commits
	h.Confirm()
	first := commitOutcomes(h.M.step.events)
	if first != "A+ B- B+ " {
		t.Fatalf("outcomes %q, want A+ B- B+", first)
	}
	h.Keys("R")
	h.Confirm()
	if got := commitOutcomes(h.M.step.events); got != first || h.M.step.replay == nil || !h.M.step.replay.same() {
		t.Fatalf("replay outcomes %q, want %q", got, first)
	}
	if !strings.Contains(h.M.View(), "as in the first run") {
		t.Errorf("the replay verdict is not shown:\n%s", h.M.View())
	}
	n, err := race.ReadCounter(viewtest.Ctx, h.S, raceCounterKey())
	if err != nil || n.N != 2 {
		t.Fatalf("counter after the replay = %+v (%v), want n=2", n, err)
	}
}

// TestRaceLive: 4 workers on their own connections in lockstep: with the
// check the final value equals the successes; naive, it ends below the
// attempts (lost updates).
func TestRaceLive(t *testing.T) {
	h := newRaceHarness(t, false)
	h.Keys("m", "L")
	h.M.run.increments = 10
	live := func(wantLost bool) race.Result {
		t.Helper()
		cmd := startConfirmed(t, h)
		h.Drive(cmd, nil, nil, nil, func(v Model) bool { return v.run.result != nil && !v.run.starting && v.run.race == nil })
		r := *h.M.run.result
		t.Logf("naive=%v: attempts %d, successes %d, conflicts %d, counter %d -> %d", wantLost, r.Attempts, r.Successes, r.Conflicts, r.Start, r.Final)
		if h.M.run.err != nil {
			t.Fatal(h.M.run.err)
		}
		return r
	}
	r := live(false)
	if r.Final-r.Start != r.Successes || r.Successes != 40 || r.Conflicts == 0 {
		t.Fatalf("check+set: final %d - start %d != successes %d (conflicts %d)", r.Final, r.Start, r.Successes, r.Conflicts)
	}
	if !strings.Contains(h.M.View(), "no update lost") {
		t.Errorf("view:\n%s", h.M.View())
	}
	h.Keys("U")
	r = live(true)
	if r.Final-r.Start >= r.Attempts || r.LostUpdates == 0 {
		t.Fatalf("naive: the counter moved %d for %d attempts; want lost updates", r.Final-r.Start, r.Attempts)
	}
	if !strings.Contains(h.M.View(), "lost update(s)") {
		t.Errorf("view:\n%s", h.M.View())
	}
}

// TestRaceReadOnly: reads work, writes are refused.
func TestRaceReadOnly(t *testing.T) {
	h := newRaceHarness(t, true)
	h.Keys("r")
	if c := h.M.step.clients[0]; c.Snapshot == nil {
		t.Fatalf("read in read-only mode: %+v (%v)", c, h.M.step.err)
	}
	h.Keys("i")
	if !strings.Contains(h.LastFlash(), "read-only") {
		t.Fatalf("flash = %q", h.LastFlash())
	}
}

// TestRaceSelectedClientWithoutColour: under NO_COLOR (the mono theme,
// colours stripped) selecting client B instead of A changes what is drawn;
// only the border colour told them apart (bug 3).
func TestRaceSelectedClientWithoutColour(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, false)
	m := New(views.Deps{Store: s, Now: clock.Now, Session: 1}, themes.NewStyles(themes.Mono()))
	m.SetSize(100, 30)
	m.Focus()
	a := m.View()
	m, _ = m.Update(viewtest.Key("l"))
	if b := m.View(); a == b {
		t.Fatalf("client A and client B selected look the same without colour:\n%s", a)
	}
}

// TestRaceLiveStop: x stops a live race; the screen says "stopped by you"
// (it said "done"), shows no Go error text, and accounts for attempts cut
// short by the stop, so the counts add up (bug 8). Step mode's
// intro does not describe a check in naive mode.
func TestRaceLiveStop(t *testing.T) {
	h := newRaceHarness(t, false)
	h.Keys("m")
	h.M.run.increments = 100000
	cmd := startConfirmed(t, h)
	var r atomic.Pointer[race.Race] // trigger reads it on another goroutine
	h.Drive(cmd, func() bool { l := r.Load(); return l != nil && l.Snapshot().Successes >= 20 }, viewtest.Key("x"),
		func(v Model, _ tea.Msg) { r.Store(v.run.race) },
		func(v Model) bool { return v.run.result != nil && v.run.race == nil })
	view := h.M.View()
	if !strings.Contains(view, "stopped by you") || strings.Contains(view, "done ·") || strings.Contains(view, "context canceled") {
		t.Fatalf("the stopped race:\n%s", view)
	}
	res := h.M.run.result
	if cut := res.Attempts - res.Successes - res.Conflicts; cut > 0 && !strings.Contains(view, fmt.Sprintf("%-14s %8d", "cut short", cut)) {
		t.Fatalf("%d attempts cut short are not shown:\n%s", cut, view)
	}
	h.Keys("m", "U")
	if v := h.M.View(); strings.Contains(v, "a check on the stamp it saw") || !strings.Contains(v, "no check") {
		t.Fatalf("naive step mode describes a check:\n%s", v)
	}
}

// startConfirmed presses enter in live mode, checks that it asks first (a
// key that writes always asks: it started the workers at once) and
// answers yes, returning the start command for Drive.
func startConfirmed(t *testing.T, h *viewtest.Harness[Model]) tea.Cmd {
	t.Helper()
	h.Keys("enter")
	if len(h.Confirms) != 1 || h.M.run.starting {
		t.Fatalf("enter started the race without asking (%d dialogs)", len(h.Confirms))
	}
	c := h.Confirms[0]
	h.Confirms = nil
	if !strings.Contains(strings.Join(c.Lines, " "), "workers") {
		t.Fatalf("the dialog does not say what starts: %q", c.Lines)
	}
	v, cmd := h.M.Update(c.Do())
	h.M = v
	return cmd
}

// TestRaceNarrowShowsTheSelectedClient: at 60x18 the clients are stacked
// and client B was below the screen whatever was selected;
// selecting B now scrolls it into view.
func TestRaceNarrowShowsTheSelectedClient(t *testing.T) {
	s, clock, path := viewtest.Reference(t, false)
	h := viewtest.Start[Model, *Model](t, s, clock, 60, 18-3, New, viewtest.Reopen(path, clock))
	h.RequireView("client A")
	h.Keys("l")
	h.RequireView("client B", "1 client(s) above")
	h.Keys("h")
	h.RequireView("client A")
}
