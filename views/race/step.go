package race

import (
	"context"
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/race"
	"kvdeck/store"
	"kvdeck/views"
)

// stepState is the theater as the view last saw it. The Stepper is shared
// with the commands that run its steps; Clients and Events are collected
// inside those commands, never in View.
type stepState struct {
	stepper  *race.Stepper // nil when the store is not a kvdeck store
	err      error         // why there is no stepper, or the last step's error
	clients  []race.ClientState
	events   []race.Event
	selected int
	busy     bool
	gen      int
	asked    int // the tag of the commit or replay dialog in flight
	// replay compares a replay's commit outcomes with the first run's.
	replay *replayVerdict
}

// replayVerdict is the result of a replay: the first run's and the
// replay's commit outcomes, in order.
type replayVerdict struct {
	before, after []race.Outcome
}

// same reports whether every commit succeeded or failed as before.
func (r replayVerdict) same() bool {
	if len(r.before) != len(r.after) {
		return false
	}
	for i := range r.before {
		if r.before[i].Client != r.after[i].Client || r.before[i].OK != r.after[i].OK {
			return false
		}
	}
	return true
}

func newStepState(deps views.Deps) stepState {
	st := stepState{clients: []race.ClientState{{Name: "A"}, {Name: "B"}}}
	st.stepper = race.NewStepper(deps.Store, raceCounterKey())
	return st
}

// raceStepped answers runStep.
type raceStepped struct {
	session, gen int
	clients      []race.ClientState
	events       []race.Event
	replay       *replayVerdict
	err          error
}

// stepAction is one thing the theater is asked to do.
type stepAction struct {
	kind   race.StepKind // read, stage, commit, recover
	client int
	add    bool // add a client
	replay bool // replay the recording
	reset  bool
	naive  bool
}

// runStep runs one action on the theater and collects its state.
func runStep(t *race.Stepper, session, gen int, a stepAction) tea.Cmd {
	return views.StoreCmd(views.WriteTimeout, func(ctx context.Context) tea.Msg {
		msg := raceStepped{session: session, gen: gen}
		t.SetNaive(a.naive)
		switch {
		case a.add:
			_, msg.err = t.AddClient()
		case a.reset:
			t.Reset()
		case a.replay:
			before := outcomes(t.Events())
			var after []race.Event
			after, msg.err = t.Replay(store.WithWriteOp(ctx, "race: replay"), t.Recording())
			msg.replay = &replayVerdict{before: before, after: outcomes(after)}
		case a.kind == race.StepRead:
			_, msg.err = t.Read(ctx, a.client)
		case a.kind == race.StepStage:
			_, msg.err = t.Stage(ctx, a.client)
		case a.kind == race.StepCommit:
			_, msg.err = t.Commit(store.WithWriteOp(ctx, "race: commit"), a.client)
		default:
			_, msg.err = t.Recover(ctx, a.client)
		}
		msg.clients, msg.events = t.Clients(), t.Events()
		return msg
	})
}

// outcomes picks the commit outcomes out of a log.
func outcomes(events []race.Event) []race.Outcome {
	var out []race.Outcome
	for _, e := range events {
		if e.Outcome != nil {
			out = append(out, *e.Outcome)
		}
	}
	return out
}

// selectLeft and selectRight select the previous or next client.
func (m *Model) selectLeft() tea.Cmd {
	m.step.selected = max(m.step.selected-1, 0)
	return nil
}

func (m *Model) selectRight() tea.Cmd {
	m.step.selected = min(m.step.selected+1, len(m.step.clients)-1)
	return nil
}

// takeStep takes a on the theater, asking first when it writes; nothing
// while there is no theater or a step runs.
func (m *Model) takeStep(a stepAction) tea.Cmd {
	if m.step.stepper == nil || m.step.busy {
		return nil
	}
	if ask := m.askStep(a); ask != nil {
		return ask
	}
	return m.runStep(a)
}

// runStep starts a on the theater.
func (m *Model) runStep(a stepAction) tea.Cmd {
	st := &m.step
	st.busy, st.gen = true, m.nextTag()
	return runStep(st.stepper, m.deps.Session, st.gen, a)
}

// stepConfirmed answers the dialog of a commit or a replay.
type stepConfirmed struct {
	session, tag int
	a            stepAction
}

// askStep asks before a step that writes the counter: a client's commit
// (what it checks and sets) or a replay (the reset and the commits it
// makes again); nil for a step that writes nothing, or a commit with
// nothing staged (the theater says so).
func (m *Model) askStep(a stepAction) tea.Cmd {
	st := &m.step
	k := codec.Format(raceCounterKey())
	var title, yes string
	var lines []string
	switch {
	case a.replay:
		rec := st.stepper.Recording()
		commits := 0
		for _, s := range rec.Steps {
			if s.Kind == race.StepCommit {
				commits++
			}
		}
		start := "deletes it (it was absent)"
		if rec.Start.Found {
			start = fmt.Sprintf(`sets it to {"n":%d}`, rec.Start.N)
		}
		title, yes = "Replay the interleaving?", "replay"
		lines = []string{
			fmt.Sprintf("Resets %s to the recorded start (%s), then takes the %d recorded step(s) again, %d of them commits.", k, start, len(rec.Steps), commits),
			"Whatever the counter holds now is overwritten.",
		}
	case a.kind == race.StepCommit && a.client < len(st.clients) && st.clients[a.client].Staged != nil:
		c := st.clients[a.client]
		staged := *c.Staged
		title, yes = fmt.Sprintf("Commit client %s's staged write?", c.Name), "commit"
		lines = []string{staged.String(raceCounterKey())}
		was := "absent"
		if c.Snapshot != nil && c.Snapshot.Found {
			was = fmt.Sprintf(`{"n":%d} at stamp %s`, c.Snapshot.N, c.Snapshot.Stamp)
		}
		lines = append(lines, fmt.Sprintf(`%s read %s; the commit writes {"n":%d}.`, c.Name, was, staged.N))
		if staged.Check {
			lines = append(lines, "If another client committed since "+c.Name+" read, the check fails and nothing is written.")
		} else {
			lines = append(lines, "Naive: no check. Whatever another client wrote since "+c.Name+" read is overwritten (a lost update).")
		}
	default:
		return nil
	}
	tag, session := m.nextTag(), m.deps.Session
	st.asked = tag
	return views.Confirm(title, yes, func() tea.Msg { return stepConfirmed{session: session, tag: tag, a: a} }, lines...)
}

// onStepConfirmed runs the step the dialog asked for, unless another
// step or dialog came in between.
func (m Model) onStepConfirmed(msg stepConfirmed) (Model, tea.Cmd) {
	st := &m.step
	if msg.session != m.deps.Session || msg.tag != st.asked || st.busy || st.stepper == nil {
		return m, nil
	}
	st.asked = 0
	cmd := m.runStep(msg.a)
	return m, cmd
}

// nextStep is what enter does for client c, from its last step in the
// log: read, stage, commit; after a failed commit, recover.
func nextStep(events []race.Event, c int) race.StepKind {
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		if e.Step.Client != c {
			continue
		}
		switch e.Step.Kind {
		case race.StepRead:
			return race.StepStage
		case race.StepStage, race.StepRecover:
			return race.StepCommit
		case race.StepCommit:
		}
		if e.Outcome != nil && !e.Outcome.OK {
			return race.StepRecover
		}
		return race.StepRead
	}
	return race.StepRead
}

// onStepped takes the theater's state after a step.
func (m Model) onStepped(msg raceStepped) (Model, tea.Cmd) {
	st := &m.step
	if msg.session != m.deps.Session || msg.gen != st.gen {
		return m, nil
	}
	st.busy = false
	st.clients, st.events, st.err = msg.clients, msg.events, msg.err
	st.selected = min(st.selected, len(st.clients)-1)
	if msg.replay != nil {
		st.replay = msg.replay
	} else if len(msg.events) == 0 {
		st.replay = nil
	}
	switch {
	case msg.err != nil && errors.Is(msg.err, race.ErrInvalidStep):
		return m, views.Flash(views.FlashInfo, "%v", msg.err)
	case msg.err != nil:
		return m, views.Flash(views.FlashError, "race: %v", msg.err)
	}
	return m, nil
}

// naiveText says what the naive switch does.
func naiveText(naive bool) string {
	if naive {
		return "naive: stages and increments write without a check, so updates can be lost"
	}
	return "check+set: every increment checks the stamp it read (CAS)"
}
