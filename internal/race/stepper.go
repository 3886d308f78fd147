package race

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"kvdeck/codec"
	"kvdeck/store"
)

// Stepper is the CAS race theater: clients A, B, ... each read the counter,
// stage an increment of what they read and commit it, one step at a time
// in whatever order the caller chooses. It records the steps so that the
// interleaving can be replayed, and it remembers which client committed
// which stamp, so a failed commit names the client that wrote in between.
//
// Steps run one at a time (a Stepper is safe for concurrent use, but a
// step waits for the one before). Writes by clients outside the theater
// are seen but not recorded: a replay does not repeat them.
type Stepper struct {
	mu      sync.Mutex
	s       *store.Store
	key     codec.Key
	naive   bool
	clients []client
	writes  []Write // the theater's commits, in order
	events  []Event
	rec     Recording
}

// client is one client's private state.
type client struct {
	snap   *Counter
	readAt int // len(writes) at the last read
	staged *Staged
	last   *Outcome
}

// NewStepper returns a theater on the counter at key with two clients, A
// and B. It reads nothing until the first step.
func NewStepper(s *store.Store, key codec.Key) *Stepper {
	return &Stepper{s: s, key: key, clients: make([]client, 2)}
}

// Key is the counter's key.
func (t *Stepper) Key() codec.Key { return t.key }

// AddClient adds the next client (C, D, ...) and returns its index.
func (t *Stepper) AddClient() (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.clients) >= MaxClients {
		return 0, fmt.Errorf("%w: the theater has room for %d clients", ErrInvalidStep, MaxClients)
	}
	t.clients = append(t.clients, client{})
	return len(t.clients) - 1, nil
}

// SetNaive makes the following stage and recover steps stage a blind set
// without a check (true), or check+set again (false).
func (t *Stepper) SetNaive(naive bool) {
	t.mu.Lock()
	t.naive = naive
	t.mu.Unlock()
}

// Naive reports whether stage steps are naive.
func (t *Stepper) Naive() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.naive
}

// Clients returns every client's state.
func (t *Stepper) Clients() []ClientState {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]ClientState, len(t.clients))
	for i, c := range t.clients {
		out[i] = ClientState{Name: ClientName(i), Snapshot: c.snap, Staged: c.staged, Last: c.last}
	}
	return out
}

// Events returns the log of the steps taken since the last Reset or Replay.
func (t *Stepper) Events() []Event {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.events)
}

// Recording returns the interleaving so far, for Replay.
func (t *Stepper) Recording() Recording {
	t.mu.Lock()
	defer t.mu.Unlock()
	rec := t.rec
	rec.Steps = slices.Clone(rec.Steps)
	return rec
}

// Reset forgets every client's state, the log and the recording; the store
// is not touched.
func (t *Stepper) Reset() {
	t.mu.Lock()
	t.resetLocked(len(t.clients))
	t.mu.Unlock()
}

func (t *Stepper) resetLocked(clients int) {
	t.clients = make([]client, clients)
	t.writes, t.events, t.rec = nil, nil, Recording{}
}

// Read takes client c's snapshot of the counter (value and stamp).
func (t *Stepper) Read(ctx context.Context, c int) (Event, error) {
	return t.do(ctx, Step{Client: c, Kind: StepRead})
}

// Stage stages client c's increment of its snapshot: check(snapshot stamp)
// + set(snapshot n+1), or the set alone in naive mode. It needs a read.
func (t *Stepper) Stage(ctx context.Context, c int) (Event, error) {
	return t.do(ctx, Step{Client: c, Kind: StepStage})
}

// Commit commits client c's staged increment. A failed check is not an
// error: the event's Outcome says so and explains it.
func (t *Stepper) Commit(ctx context.Context, c int) (Event, error) {
	return t.do(ctx, Step{Client: c, Kind: StepCommit})
}

// Recover is what a loser does: read again and stage again, ready to commit.
func (t *Stepper) Recover(ctx context.Context, c int) (Event, error) {
	return t.do(ctx, Step{Client: c, Kind: StepRecover})
}

// Replay resets the key to rec's start value (set to {"n": Start.N}, or
// deleted when it was absent), forgets the theater's state, then takes
// rec's steps in order. Stamps differ from the first run; which commits
// succeed and which fail, and why, do not (unless a client outside the
// theater writes the key meanwhile). It returns the new log.
func (t *Stepper) Replay(ctx context.Context, rec Recording) ([]Event, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if rec.Clients < 1 || rec.Clients > MaxClients {
		return nil, fmt.Errorf("%w: a recording with %d clients", ErrInvalidStep, rec.Clients)
	}
	var err error
	if rec.Start.Found {
		_, err = t.s.Set(ctx, t.key, counterValue(rec.Start.N), nil)
	} else {
		err = t.s.Delete(ctx, t.key)
	}
	if err != nil {
		return nil, fmt.Errorf("reset %s to the recorded start: %w", codec.Format(t.key), err)
	}
	t.resetLocked(rec.Clients)
	for i, step := range rec.Steps {
		if _, err := t.stepLocked(ctx, step); err != nil {
			return slices.Clone(t.events), fmt.Errorf("replay step %d (%s): %w", i+1, step, err)
		}
	}
	return slices.Clone(t.events), nil
}

// do takes one step with the current naive setting.
func (t *Stepper) do(ctx context.Context, step Step) (Event, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if step.Kind == StepStage || step.Kind == StepRecover {
		step.Naive = t.naive
	}
	return t.stepLocked(ctx, step)
}

// stepLocked validates and takes a step, and records it when it happened.
func (t *Stepper) stepLocked(ctx context.Context, step Step) (Event, error) {
	if step.Client < 0 || step.Client >= len(t.clients) {
		return Event{}, fmt.Errorf("%w: no client %s (the theater has %d)", ErrInvalidStep, ClientName(step.Client), len(t.clients))
	}
	c := &t.clients[step.Client]
	ev := Event{Step: step}
	var err error
	switch step.Kind {
	case StepRead:
		ev.Read, err = t.read(ctx, c)
	case StepStage:
		ev.Staged, err = t.stage(c, step)
	case StepRecover:
		if ev.Read, err = t.read(ctx, c); err == nil {
			ev.Staged, err = t.stage(c, step)
		}
	case StepCommit:
		ev.Outcome, err = t.commit(ctx, c, step)
	default:
		err = fmt.Errorf("%w: unknown step kind %q", ErrInvalidStep, step.Kind)
	}
	if err != nil {
		return Event{}, err
	}
	if len(t.rec.Steps) == 0 && ev.Read != nil {
		t.rec.Start = *ev.Read
	}
	t.rec.Steps = append(t.rec.Steps, step)
	t.rec.Clients = len(t.clients)
	t.events = append(t.events, ev)
	return ev, nil
}

func (t *Stepper) read(ctx context.Context, c *client) (*Counter, error) {
	got, err := ReadCounter(ctx, t.s, t.key)
	if err != nil {
		return nil, err
	}
	c.snap, c.readAt = &got, len(t.writes)
	return &got, nil
}

func (t *Stepper) stage(c *client, step Step) (*Staged, error) {
	if c.snap == nil {
		return nil, fmt.Errorf("%w: %s has nothing to stage; it must read first", ErrInvalidStep, ClientName(step.Client))
	}
	c.staged = &Staged{Check: !step.Naive, Expected: c.snap.Stamp, N: c.snap.N + 1}
	return c.staged, nil
}

func (t *Stepper) commit(ctx context.Context, c *client, step Step) (*Outcome, error) {
	name := ClientName(step.Client)
	if c.staged == nil {
		return nil, fmt.Errorf("%w: %s has nothing staged to commit; it must stage first", ErrInvalidStep, name)
	}
	st := *c.staged
	a := t.s.Atomic()
	if st.Check {
		a.Check(t.key, st.Expected)
	}
	res, err := a.Set(t.key, counterValue(st.N)).Commit(ctx)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Client: name, OK: res.OK, Stamp: res.Versionstamp, Staged: st}
	since := t.writes[min(c.readAt, len(t.writes)):]
	if res.OK {
		if !st.Check {
			out.Overwrote = slices.Clone(since)
		}
		t.writes = append(t.writes, Write{Client: name, Stamp: res.Versionstamp, N: st.N})
	} else {
		out.Explanation = t.explain(name, st.Expected, res.Failed, since)
	}
	c.staged, c.last = nil, out
	return out, nil
}

// explain names the stamp found instead of the expected one and which
// theater client (if any) wrote it.
func (t *Stepper) explain(name, expected string, failed []store.CheckFailure, since []Write) *Explanation {
	e := &Explanation{Client: name, Expected: expected, Actual: expected, Between: slices.Clone(since)}
	if len(failed) > 0 {
		e.Actual = failed[0].Actual
	}
	for _, w := range t.writes {
		if w.Stamp == e.Actual {
			e.Writer = w.Client
		}
	}
	return e
}
