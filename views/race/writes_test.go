package race

import (
	"strings"
	"testing"

	"kvdeck/internal/race"
	"kvdeck/views"
	"kvdeck/views/viewtest"
)

// TestRaceWriteKeys walks the Race tab's write-key table: read-only, every
// key that writes or stages is refused with its reason and writes nothing;
// writable, ctrl+s and enter (A's next step being its commit) ask before
// the commit, R before the replay resets and commits, enter in live mode
// before live workers start; i and A stage and write nothing. enter is
// both step mode's next step and live mode's start, so each mode's keys
// are walked on their own.
func TestRaceWriteKeys(t *testing.T) {
	keys := DefaultKeys()
	var stepWrites, liveWrites views.WriteKeys
	for _, w := range keys.actions().Writes() {
		if w.Binding == &keys.Start {
			liveWrites = append(liveWrites, w)
		} else {
			stepWrites = append(stepWrites, w)
		}
	}
	t.Run("step", func(t *testing.T) {
		viewtest.WalkWriteKeys(t, viewtest.WriteWalk[Model]{
			Writes: stepWrites,
			Start:  newRaceHarness,
			Prepare: func(h *viewtest.Harness[Model], key string) {
				switch key {
				case "enter", "ctrl+s":
					h.Keys("r", "i") // A's next step is its commit
				case "R":
					h.Keys("r", "i", "ctrl+s")
					if !h.M.readOnly {
						h.Confirm()
					}
				}
			},
			Capturing: Model.Capturing,
		})
	})
	t.Run("live", func(t *testing.T) {
		viewtest.WalkWriteKeys(t, viewtest.WriteWalk[Model]{
			Writes:    liveWrites,
			Start:     newRaceHarness,
			Prepare:   func(h *viewtest.Harness[Model], _ string) { h.Keys("m") },
			Capturing: Model.Capturing,
			NoFollow:  []string{"enter"}, // the live race itself: TestRaceLive
		})
	})
}

// TestRaceCommitAsks: c asks first, naming the staged check+set and what
// A read, and writes nothing until confirmed; n leaves the counter as it
// was and A's commit still staged.
func TestRaceCommitAsks(t *testing.T) {
	h := newRaceHarness(t, false)
	h.Keys("r", "i", "ctrl+s")
	if len(h.Confirms) != 1 {
		t.Fatalf("c asked %d time(s)", len(h.Confirms))
	}
	text := h.Confirms[0].Title + "\n" + strings.Join(h.Confirms[0].Lines, "\n")
	for _, want := range []string{"client A", `set(["kvdeck", "race"], {"n":1})`, "A read absent", "the check fails and nothing is written"} {
		if !strings.Contains(text, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, text)
		}
	}
	if n, err := race.ReadCounter(viewtest.Ctx, h.S, raceCounterKey()); err != nil || n.Found {
		t.Fatalf("the counter was written before the answer: %+v %v", n, err)
	}
	h.Confirms = nil // n
	if c := h.M.step.clients[0]; c.Staged == nil || c.Last != nil {
		t.Fatalf("after n, A: %+v", c)
	}
	h.Keys("ctrl+s")
	h.Confirm()
	if n, err := race.ReadCounter(viewtest.Ctx, h.S, raceCounterKey()); err != nil || n.N != 1 {
		t.Fatalf("counter after the confirmed commit: %+v %v", n, err)
	}
}
