package race_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"kvdeck/internal/race"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

const a, b = 0, 1

// steps takes steps on st, failing the test on an error; it returns the
// events.
func steps(t *testing.T, st *race.Stepper, moves ...race.Step) []race.Event {
	t.Helper()
	var out []race.Event
	for _, m := range moves {
		var ev race.Event
		var err error
		switch m.Kind {
		case race.StepRead:
			ev, err = st.Read(ctx(t), m.Client)
		case race.StepStage:
			ev, err = st.Stage(ctx(t), m.Client)
		case race.StepCommit:
			ev, err = st.Commit(ctx(t), m.Client)
		case race.StepRecover:
			ev, err = st.Recover(ctx(t), m.Client)
		}
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		out = append(out, ev)
	}
	return out
}

func step(c int, k race.StepKind) race.Step { return race.Step{Client: c, Kind: k} }

// pattern is what a replay must reproduce: who did what, and whether each
// commit applied and whom a failure blamed. Stamps are left out: they are
// new on every run.
func pattern(events []race.Event) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Step.String()
		if o := e.Outcome; o != nil {
			out[i] += fmt.Sprintf(" ok=%v n=%d", o.OK, o.Staged.N)
			if o.Explanation != nil {
				out[i] += " writer=" + o.Explanation.Writer
			}
		}
		if e.Read != nil {
			out[i] += fmt.Sprintf(" read n=%d", e.Read.N)
		}
	}
	return out
}

// TestStepperLoserExplainedAndRecovers: A and B read the same stamp, A
// commits, B's commit fails naming A's stamp and A as the writer in
// between; B recovers and commits; a replay reproduces all of it.
func TestStepperLoserExplainedAndRecovers(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, db storetest.Backend) {
		s := storetest.Open(t, db.URL(t), store.Options{})
		set(t, s, `{"n":5}`)
		st := race.NewStepper(s, counterKey)
		evs := steps(t, st, step(a, race.StepRead), step(b, race.StepRead), step(a, race.StepStage), step(b, race.StepStage), step(a, race.StepCommit), step(b, race.StepCommit))
		readA, readB := evs[0].Read, evs[1].Read
		if readA.Stamp != readB.Stamp || readA.N != 5 {
			t.Fatalf("reads %+v %+v", readA, readB)
		}
		won, lost := evs[4].Outcome, evs[5].Outcome
		if !won.OK || won.Staged.N != 6 || lost.OK || lost.Explanation == nil {
			t.Fatalf("outcomes %+v, %+v", won, lost)
		}
		ex := *lost.Explanation
		if ex.Expected != readB.Stamp || ex.Actual != won.Stamp || ex.Writer != "A" || len(ex.Between) != 1 || ex.Between[0].Client != "A" {
			t.Fatalf("explanation %+v; A committed %s, B read %s", ex, won.Stamp, readB.Stamp)
		}
		msg := lost.String()
		for _, want := range []string{"B", readB.Stamp, won.Stamp, "written by A"} {
			if !strings.Contains(msg, want) {
				t.Errorf("explanation %q lacks %q", msg, want)
			}
		}
		rec := steps(t, st, step(b, race.StepRecover), step(b, race.StepCommit))
		if rec[0].Read.Stamp != won.Stamp || rec[0].Staged.N != 7 || !rec[1].Outcome.OK {
			t.Fatalf("recovery %v / %v", rec[0], rec[1])
		}
		if got := read(t, s).N; got != 7 {
			t.Fatalf("counter %d, want 7", got)
		}
		first := st.Events()
		firstStamps := stamps(first)

		// Somebody moves the counter on; the replay starts from 5 again.
		set(t, s, `{"n":100}`)
		again, err := st.Replay(ctx(t), st.Recording())
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(pattern(again), pattern(first)) {
			t.Fatalf("replay differs:\n%q\n%q", pattern(again), pattern(first))
		}
		if s2 := stamps(again); len(s2) != len(firstStamps) || slices.Equal(s2, firstStamps) {
			t.Fatalf("stamps %v, first run %v: want the same count, new numbers", s2, firstStamps)
		}
		ex2 := again[5].Outcome.Explanation
		if ex2.Actual != again[4].Outcome.Stamp || ex2.Writer != "A" {
			t.Fatalf("replayed explanation %+v", ex2)
		}
		if got := read(t, s).N; got != 7 {
			t.Fatalf("counter after replay %d, want 7", got)
		}
	})
}

// stamps lists the stamps of the commits that applied.
func stamps(events []race.Event) []string {
	var out []string
	for _, e := range events {
		if e.Outcome != nil && e.Outcome.OK {
			out = append(out, e.Outcome.Stamp)
		}
	}
	return out
}

// TestStepperForeignWriter: a write from outside the theater is blamed on
// "another client"; a deleted key is explained as absent.
func TestStepperForeignWriter(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, db storetest.Backend) {
		s := storetest.Open(t, db.URL(t), store.Options{})
		st := race.NewStepper(s, counterKey)
		evs := steps(t, st, step(a, race.StepRead), step(a, race.StepStage))
		if evs[0].Read.Found || evs[1].Staged.Expected != "" {
			t.Fatalf("an absent counter read as %+v", evs[0].Read)
		}
		foreign := set(t, s, `{"n":41}`)
		o := steps(t, st, step(a, race.StepCommit))[0].Outcome
		if o.OK || o.Explanation.Actual != foreign || o.Explanation.Writer != "" || !strings.Contains(o.String(), "another client") {
			t.Fatalf("outcome %s (%+v)", o, o.Explanation)
		}
		steps(t, st, step(b, race.StepRead), step(b, race.StepStage))
		if err := s.Delete(ctx(t), counterKey); err != nil {
			t.Fatal(err)
		}
		o = steps(t, st, step(b, race.StepCommit))[0].Outcome
		if o.OK || o.Explanation.Actual != "" || !strings.Contains(o.String(), "absent") {
			t.Fatalf("outcome %s", o)
		}
		// A replay starts from absent, as the first read saw.
		again, err := st.Replay(ctx(t), st.Recording())
		if err != nil {
			t.Fatal(err)
		}
		if again[0].Read.Found || !again[2].Outcome.OK {
			t.Fatalf("replay without the foreign writer: %v", again)
		}
	})
}

// TestStepperNaive: without the check both commits apply and the second
// overwrites the first: one update lost, and the outcome says whose.
func TestStepperNaive(t *testing.T) {
	url := "file:" + t.TempDir() + "/kv.db"
	s := storetest.Open(t, url, store.Options{})
	set(t, s, `{"n":1}`)
	st := race.NewStepper(s, counterKey)
	st.SetNaive(true)
	evs := steps(t, st, step(a, race.StepRead), step(b, race.StepRead), step(a, race.StepStage), step(b, race.StepStage), step(a, race.StepCommit), step(b, race.StepCommit))
	if evs[2].Staged.Check || !evs[2].Step.Naive {
		t.Fatalf("naive stage %+v", evs[2])
	}
	second := evs[5].Outcome
	if !second.OK || len(second.Overwrote) != 1 || second.Overwrote[0].Client != "A" || !strings.Contains(second.String(), "lost update") {
		t.Fatalf("second naive commit %s", second)
	}
	if got := read(t, s).N; got != 2 {
		t.Fatalf("counter %d, want 2 (two increments, one lost)", got)
	}
	// The recording keeps the naive stages even once the theater checks again.
	st.SetNaive(false)
	again, err := st.Replay(ctx(t), st.Recording())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pattern(again), pattern(evs)) {
		t.Fatalf("replay differs:\n%q\n%q", pattern(again), pattern(evs))
	}
}

// TestStepperInvalidSteps: steps that cannot apply are refused, write
// nothing and are not recorded.
func TestStepperInvalidSteps(t *testing.T) {
	url := "file:" + t.TempDir() + "/kv.db"
	s := storetest.Open(t, url, store.Options{})
	st := race.NewStepper(s, counterKey)
	for name, try := range map[string]func() error{
		"stage before read": func() error { _, err := st.Stage(ctx(t), a); return err },
		"commit unstaged":   func() error { _, err := st.Commit(ctx(t), b); return err },
		"no client C":       func() error { _, err := st.Read(ctx(t), 2); return err },
		"negative client":   func() error { _, err := st.Read(ctx(t), -1); return err },
	} {
		if err := try(); !errors.Is(err, race.ErrInvalidStep) {
			t.Errorf("%s: err = %v, want ErrInvalidStep", name, err)
		}
	}
	if n := len(st.Recording().Steps); n != 0 {
		t.Fatalf("%d steps recorded", n)
	}
	c, err := st.AddClient()
	if err != nil || c != 2 {
		t.Fatalf("AddClient = %d, %v", c, err)
	}
	steps(t, st, step(c, race.StepRead), step(c, race.StepStage), step(c, race.StepCommit))
	if got := st.Clients(); len(got) != 3 || got[2].Name != "C" || got[2].Last == nil || !got[2].Last.OK || got[2].Staged != nil {
		t.Fatalf("clients %+v", got)
	}
	if _, err := st.Replay(ctx(t), race.Recording{}); !errors.Is(err, race.ErrInvalidStep) {
		t.Fatalf("empty recording: %v", err)
	}
	set(t, s, `[1, 2]`)
	if _, err := st.Read(ctx(t), a); !errors.Is(err, race.ErrNotCounter) {
		t.Fatalf("reading [1, 2]: %v", err)
	}
}
