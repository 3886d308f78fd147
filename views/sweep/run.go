package sweep

import (
	"context"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
)

// sweepTimeout bounds one sweep: batches keep every lock short, but a
// million rows take a while.
const sweepTimeout = 30 * time.Minute

// progressEvery is how often a running sweep's progress is polled (tests
// poll faster through Sweep.pollEvery).
const progressEvery = 100 * time.Millisecond

// sweepRun is a sweep in flight. The sweep's goroutine (a command) writes
// the counters from its Progress callback; poll commands read them. The
// model keeps the pointer only to read it in commands and to cancel.
type sweepRun struct {
	gen   int
	scope string // what is swept, for the receipt
	total int64  // rows the sweep is expected to remove (its confirmation's count)
	// includeLive: the user chose to sweep the rows the real clock sees
	// live too.
	includeLive bool
	swept       atomic.Int64
	batches     atomic.Int64
	cancel      context.CancelFunc
	started     time.Time
	pace        func(store.SweepProgress) // Model.pace
}

// sweepProgress answers pollSweep.
type sweepProgress struct {
	session, gen   int
	swept, batches int64
}

// pollSweep waits one poll interval, then reads the run's counters. The
// model re-arms it on receipt while the run is in flight.
func pollSweep(session int, run *sweepRun, every time.Duration) tea.Cmd {
	return tea.Tick(every, func(time.Time) tea.Msg {
		return sweepProgress{session: session, gen: run.gen, swept: run.swept.Load(), batches: run.batches.Load()}
	})
}

// sweepDone answers runSweep (a dry run too).
type sweepDone struct {
	session, gen int
	dryRun       bool
	scope        string
	includeLive  bool
	res          store.SweepResult
	err          error
}

// runSweep sweeps the rows that are expired at opts.Now under opts.Prefix,
// in batches (one short transaction each), reporting progress into run.
func runSweep(ctx context.Context, src *store.Store, session int, run *sweepRun, opts store.SweepOptions) tea.Cmd {
	opts.Progress = func(p store.SweepProgress) {
		run.swept.Store(p.Swept)
		run.batches.Store(int64(p.Batches))
		if run.pace != nil {
			run.pace(p)
		}
	}
	return func() tea.Msg {
		defer run.cancel()
		res, err := src.Sweep(ctx, opts)
		return sweepDone{session: session, gen: run.gen, scope: run.scope, includeLive: run.includeLive, res: res, err: err}
	}
}

// dryRun counts what a sweep of prefix at now would remove, keeping what
// the real clock sees live (and counting that too).
func dryRun(src *store.Store, session, gen int, scope string, prefix codec.Key, now, real int64) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), scanTimeout)
		defer cancel()
		res, err := src.Sweep(ctx, store.SweepOptions{Now: now, RealNow: real, Prefix: prefix, DryRun: true})
		return sweepDone{session: session, gen: gen, dryRun: true, scope: scope, res: res, err: err}
	}
}
