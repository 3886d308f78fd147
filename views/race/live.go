package race

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/race"
	"kvdeck/views"
)

// liveTimeout bounds a live race.
const liveTimeout = 10 * time.Minute

// livePoll is how often the live figures are polled.
const livePoll = 100 * time.Millisecond

// liveState is live mode: its settings and the race in flight or done.
type liveState struct {
	workers, increments int
	lockstep            bool
	starting            bool       // a start is in flight
	race                *race.Race // in flight; nil when none
	cancel              context.CancelFunc
	gen                 int
	snap                race.Snapshot
	result              *race.Result
	err                 error
	stopped             bool // the result is of a race the user stopped
}

func newLiveState() liveState { return liveState{workers: 4, increments: 25} }

// liveStarted answers startLive.
type liveStarted struct {
	session, gen int
	race         *race.Race
	cancel       context.CancelFunc
	err          error
}

// startLive starts the workers; Start returns at once (they open their
// stores and race in the background).
func startLive(session, gen int, cfg race.Config) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), liveTimeout)
		r, err := race.Start(ctx, cfg)
		return liveStarted{session: session, gen: gen, race: r, cancel: cancel, err: err}
	}
}

// liveTick answers pollLive: the figures at the tick.
type liveTick struct {
	session, gen int
	snap         race.Snapshot
}

// pollLive waits one poll interval and reads the race's figures.
func pollLive(session, gen int, r *race.Race) tea.Cmd {
	return tea.Tick(livePoll, func(time.Time) tea.Msg {
		return liveTick{session: session, gen: gen, snap: r.Snapshot()}
	})
}

// liveDone answers waitLive.
type liveDone struct {
	session, gen int
	res          race.Result
	err          error
}

// waitLive waits for the race to end (in a command's goroutine).
func waitLive(session, gen int, r *race.Race) tea.Cmd {
	return func() tea.Msg {
		res, err := r.Wait()
		return liveDone{session: session, gen: gen, res: res, err: err}
	}
}

// stopLive stops the live workers (x).
func (m *Model) stopLive() tea.Cmd {
	m.run.cancel()
	return views.Flash(views.FlashInfo, "stopping: each worker stops after its current step")
}

// liveConfirmed answers the start dialog.
type liveConfirmed struct{ session int }

// askStart asks before the workers write the counter: a key that writes
// always asks first.
func (m *Model) askStart() tea.Cmd {
	if m.readOnly || m.run.starting || m.run.race != nil {
		return nil
	}
	lv, session := m.run, m.deps.Session
	mode := "read / check / set / retry"
	if m.naive {
		mode = "read, then a blind set (naive: updates will be lost)"
	}
	return views.Confirm("Start the race?", "start", func() tea.Msg { return liveConfirmed{session: session} },
		fmt.Sprintf("%d workers, each on its own connection, increment %s %d times each (%s).", lv.workers, codec.Format(raceCounterKey()), lv.increments, mode),
		views.Hint("The counter is written in this store; %s stops the workers.", m.keys.Stop))
}

// startLive starts N workers, each on its own connection.
func (m *Model) startLive() tea.Cmd {
	lv := &m.run
	switch {
	case m.deps.Open == nil:
		return views.Flash(views.FlashError, "live mode opens a connection per worker, and this shell cannot open more connections")
	case lv.starting:
		return nil
	}
	lv.starting, lv.gen, lv.result, lv.err, lv.stopped = true, m.nextTag(), nil, nil, false
	lv.snap = race.Snapshot{}
	cfg := race.Config{Open: m.deps.Open, Key: raceCounterKey(), Workers: lv.workers, Increments: lv.increments,
		Naive: m.naive, Lockstep: lv.lockstep}
	return startLive(m.deps.Session, lv.gen, cfg)
}

// onLiveStarted begins polling the race and waiting for its end.
func (m Model) onLiveStarted(msg liveStarted) (Model, tea.Cmd) {
	lv := &m.run
	if msg.session != m.deps.Session || msg.gen != lv.gen {
		msg.cancel() // an old session's race: stop it unseen
		return m, nil
	}
	lv.starting, lv.cancel = false, msg.cancel
	if msg.err != nil {
		lv.cancel()
		lv.err = msg.err
		return m, views.Flash(views.FlashError, "race: %v", msg.err)
	}
	lv.race = msg.race
	m.updateKeys()
	return m, tea.Batch(pollLive(m.deps.Session, lv.gen, lv.race), waitLive(m.deps.Session, lv.gen, lv.race))
}

// onLiveTick shows the figures and re-arms the poll while the race runs.
func (m Model) onLiveTick(msg liveTick) (Model, tea.Cmd) {
	lv := &m.run
	if msg.session != m.deps.Session || msg.gen != lv.gen || lv.race == nil {
		return m, nil
	}
	lv.snap = msg.snap
	return m, pollLive(m.deps.Session, lv.gen, lv.race)
}

// onLiveDone shows the result.
func (m Model) onLiveDone(msg liveDone) (Model, tea.Cmd) {
	lv := &m.run
	if msg.session != m.deps.Session || msg.gen != lv.gen {
		return m, nil
	}
	lv.cancel()
	lv.race, lv.result, lv.err = nil, &msg.res, msg.err
	lv.snap.WorkerStats, lv.snap.Workers, lv.snap.Phase, lv.snap.Elapsed = msg.res.WorkerStats, msg.res.Workers, race.PhaseDone, msg.res.Elapsed
	lv.stopped = errors.Is(msg.err, context.Canceled)
	if lv.stopped {
		lv.err = nil // the user's stop, not a failure: the phase line says it
	}
	m.updateKeys()
	switch {
	case lv.stopped:
		return m, views.Flash(views.FlashInfo, "race stopped: %d successes, counter at %d", msg.res.Successes, msg.res.Final)
	case msg.err != nil:
		return m, views.Flash(views.FlashError, "race: %v", msg.err)
	}
	return m, views.Flash(views.FlashOK, "race done: %d successes, %d conflicts, counter %d → %d", msg.res.Successes, msg.res.Conflicts, msg.res.Start, msg.res.Final)
}
