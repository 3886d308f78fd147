package race

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
)

// MaxWorkers bounds Config.Workers: each worker holds its own connections.
const MaxWorkers = 256

// Config describes a live race.
type Config struct {
	// Open opens one store. It is called once per worker, so that every
	// worker has its own connection pool, as separate clients would.
	Open func(ctx context.Context) (*store.Store, error)
	// Key is the counter's key.
	Key codec.Key
	// Workers is how many clients race (1 to MaxWorkers).
	Workers int
	// Increments is how many successful increments each worker makes.
	Increments int
	// Naive drops the check: read, then an unconditional set of n+1. Updates
	// get lost when another worker commits between the read and the set.
	Naive bool
	// Lockstep makes every worker read, wait until all have read, then
	// write, and wait again before the next read: the worst interleaving,
	// every time. With Naive, each round of W workers loses W-1 updates;
	// without it, each round has exactly one winner.
	Lockstep bool
}

func (c Config) validate() error {
	switch {
	case c.Open == nil:
		return errors.New("race: Config.Open is nil")
	case c.Workers < 1 || c.Workers > MaxWorkers:
		return fmt.Errorf("race: %d workers; want 1 to %d", c.Workers, MaxWorkers)
	case c.Increments < 1:
		return fmt.Errorf("race: %d increments per worker; want at least 1", c.Increments)
	}
	_, err := codec.Encode(c.Key)
	return err
}

// Phase is where a live race is.
type Phase int32

// The phases of a live race, in order.
const (
	// PhaseOpening: the workers' stores are being opened and the start value read.
	PhaseOpening Phase = iota
	// PhaseRunning: the workers are incrementing.
	PhaseRunning
	// PhaseDone: the race ended (finished, failed or cancelled); Wait returns.
	PhaseDone
)

// String names the phase.
func (p Phase) String() string {
	switch p {
	case PhaseOpening:
		return "opening"
	case PhaseRunning:
		return "running"
	case PhaseDone:
		return "done"
	}
	return fmt.Sprintf("Phase(%d)", int32(p))
}

// WorkerStats are one worker's figures.
type WorkerStats struct {
	// Attempts counts commits tried (with or without a check).
	Attempts int64 `json:"attempts"`
	// Successes counts commits that applied.
	Successes int64 `json:"successes"`
	// Conflicts counts commits whose check failed (never in naive mode).
	Conflicts int64 `json:"conflicts"`
	// Unknown counts commits whose answer was lost (a timeout, an
	// interrupt, a dropped connection) and that a re-read could not show
	// applied (store.ErrOutcomeUnknown): each may or may not have landed.
	// A commit the re-read found applied counts as a success.
	Unknown int64 `json:"unknown"`
}

func (w *WorkerStats) add(o WorkerStats) {
	w.Attempts += o.Attempts
	w.Successes += o.Successes
	w.Conflicts += o.Conflicts
	w.Unknown += o.Unknown
}

// workerCounters are a worker's live figures, written by the worker and
// read by Snapshot from any goroutine.
type workerCounters struct {
	attempts, successes, conflicts, unknown atomic.Int64
}

func (w *workerCounters) load() WorkerStats {
	return WorkerStats{Attempts: w.attempts.Load(), Successes: w.successes.Load(), Conflicts: w.conflicts.Load(), Unknown: w.unknown.Load()}
}

// Snapshot is a consistent-enough view of a running race for a UI: every
// figure is read atomically, the totals are the sums of the per-worker ones.
type Snapshot struct {
	Phase Phase
	// Start is the counter's value when the workers started (valid from
	// PhaseRunning).
	Start int64
	// Totals over every worker.
	WorkerStats
	// Workers holds each worker's figures, by worker index.
	Workers []WorkerStats
	// Elapsed is the time since the workers started (frozen at the end).
	Elapsed time.Duration
}

// ConflictRate is conflicts per attempt (0 when nothing was attempted).
func (s WorkerStats) ConflictRate() float64 {
	if s.Attempts == 0 {
		return 0
	}
	return float64(s.Conflicts) / float64(s.Attempts)
}

// Result is the outcome of a live race.
type Result struct {
	Config Config
	// Start is the counter before the race, Final after it (re-read).
	Start, Final int64
	// Expected is Start + Successes: what the counter must hold if no
	// update was lost and nobody else wrote it.
	Expected int64
	// LostUpdates is Expected - Final when positive: increments that were
	// overwritten. Always 0 with the check; that is the point of it.
	LostUpdates int64
	// OtherWrites is Final - Expected when positive, less the commits of
	// unknown outcome (Unknown) that may account for it: increments by
	// other clients (another `kvdeck race`, a service) during the race.
	OtherWrites int64
	// UnknownApplied is how many of the Unknown commits the final value
	// shows applied, as far as it can tell (the surplus over Expected, up
	// to Unknown; another client's increments are indistinguishable).
	UnknownApplied int64
	// Totals over every worker.
	WorkerStats
	// Workers holds each worker's figures.
	Workers []WorkerStats
	// Elapsed is the racing time (opening the stores excluded).
	Elapsed time.Duration
}

// Race is a live race in progress. Its methods are safe for concurrent use.
type Race struct {
	cfg     Config
	workers []workerCounters
	phase   atomic.Int32
	start   atomic.Int64
	began   atomic.Int64 // UnixNano when the workers started
	ended   atomic.Int64 // UnixNano when the last worker stopped
	done    chan struct{}
	res     Result // written before done closes
	err     error
}

// Run races cfg.Workers workers and waits for them: Start then Wait.
func Run(ctx context.Context, cfg Config) (Result, error) {
	r, err := Start(ctx, cfg)
	if err != nil {
		return Result{}, err
	}
	return r.Wait()
}

// Start checks cfg and starts the race in the background: it opens the
// workers' stores, reads the start value (refusing a key that does not
// hold a counter before anything is written) and lets the workers go.
// Cancelling ctx stops the workers after their current step; Wait then
// reports the figures so far with ctx's error.
func Start(ctx context.Context, cfg Config) (*Race, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	r := &Race{cfg: cfg, workers: make([]workerCounters, cfg.Workers), done: make(chan struct{})}
	go r.run(ctx)
	return r, nil
}

// Done is closed when the race has ended.
func (r *Race) Done() <-chan struct{} { return r.done }

// Wait blocks until the race ends and returns its result. On an error
// (a worker failed, ctx was cancelled) the result holds the figures so far.
func (r *Race) Wait() (Result, error) {
	<-r.done
	return r.res, r.err
}

// Snapshot returns the live figures; call it as often as a UI ticks.
func (r *Race) Snapshot() Snapshot {
	s := Snapshot{Phase: Phase(r.phase.Load()), Start: r.start.Load(), Workers: make([]WorkerStats, len(r.workers))}
	for i := range r.workers {
		s.Workers[i] = r.workers[i].load()
		s.WorkerStats.add(s.Workers[i])
	}
	if began := r.began.Load(); began != 0 {
		end := r.ended.Load()
		if end == 0 {
			end = time.Now().UnixNano()
		}
		s.Elapsed = time.Duration(end - began)
	}
	return s
}

func (r *Race) run(ctx context.Context) {
	defer close(r.done)
	defer r.phase.Store(int32(PhaseDone))
	stores, err := r.open(ctx)
	defer func() {
		for _, s := range stores {
			_ = s.Close()
		}
	}()
	if err != nil {
		r.err = err
		return
	}
	start, err := ReadCounter(ctx, stores[0], r.cfg.Key)
	if err != nil {
		r.err = err
		return
	}
	r.start.Store(start.N)
	r.phase.Store(int32(PhaseRunning))
	r.began.Store(time.Now().UnixNano())
	r.err = r.race(ctx, stores)
	r.ended.Store(time.Now().UnixNano())

	// The final read must happen even when ctx was cancelled: a stopped
	// race still shows where the counter ended.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	final, ferr := ReadCounter(fctx, stores[0], r.cfg.Key)
	if ferr != nil && r.err == nil {
		r.err = fmt.Errorf("re-read the counter after the race: %w", ferr)
	}
	r.res = r.result(start.N, final.N)
}

// open opens one store per worker; on failure it returns those it opened.
func (r *Race) open(ctx context.Context) ([]*store.Store, error) {
	stores := make([]*store.Store, 0, r.cfg.Workers)
	for range r.cfg.Workers {
		s, err := r.cfg.Open(ctx)
		if err != nil {
			return stores, err
		}
		stores = append(stores, s)
	}
	return stores, nil
}

// race runs every worker and returns the first error (ctx's when cancelled).
func (r *Race) race(ctx context.Context, stores []*store.Store) error {
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var bar *barrier
	if r.cfg.Lockstep {
		bar = newBarrier(len(stores))
	}
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Go(func() {
			if err := r.work(wctx, &r.workers[i], s, bar); err != nil {
				cancel(fmt.Errorf("worker %d: %w", i+1, err))
			}
		})
	}
	wg.Wait()
	return context.Cause(wctx)
}

// work is one worker: Increments times, read then commit, retrying a
// conflict until the increment lands.
func (r *Race) work(ctx context.Context, w *workerCounters, s *store.Store, bar *barrier) error {
	defer bar.leave()
	for range r.cfg.Increments {
		for {
			if err := bar.await(ctx); err != nil {
				return err
			}
			c, err := ReadCounter(ctx, s, r.cfg.Key)
			if err != nil {
				return err
			}
			if err := bar.await(ctx); err != nil {
				return err
			}
			w.attempts.Add(1)
			ok, err := increment(ctx, s, r.cfg.Key, c, r.cfg.Naive)
			if errors.Is(err, store.ErrOutcomeUnknown) {
				// Counted apart, never as someone else's write; the final
				// value says whether it landed. The worker stops: a server
				// that stopped answering is not retried forever.
				w.unknown.Add(1)
				return err
			}
			if err != nil {
				return err
			}
			if ok {
				w.successes.Add(1)
				break
			}
			w.conflicts.Add(1)
		}
	}
	return nil
}

// increment writes c.N+1: checked against c's stamp, or blindly in naive
// mode. ok is false when the check failed.
func increment(ctx context.Context, s *store.Store, key codec.Key, c Counter, naive bool) (ok bool, err error) {
	value := counterValue(c.N + 1)
	if naive {
		_, err := s.Set(ctx, key, value, nil)
		return err == nil, err
	}
	// TryCommit: a lost race is retried, not explained (one request).
	res, err := s.TryCommit(ctx, []store.Check{{Key: key, Versionstamp: c.Stamp}}, []store.Mutation{{Type: store.MutationSet, Key: key, Value: value}})
	return res.OK, err
}

func (r *Race) result(start, final int64) Result {
	snap := r.Snapshot()
	res := Result{Config: r.cfg, Start: start, Final: final, WorkerStats: snap.WorkerStats, Workers: snap.Workers, Elapsed: snap.Elapsed}
	res.Expected = start + res.Successes
	res.LostUpdates = max(0, res.Expected-final)
	surplus := max(0, final-res.Expected)
	res.UnknownApplied = min(surplus, res.Unknown)
	res.OtherWrites = surplus - res.UnknownApplied
	return res
}
