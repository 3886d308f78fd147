package demo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"kvdeck/store"
)

// Simulation defaults.
const (
	// DefaultReplicas is how many replicas the demo runs.
	DefaultReplicas = 3
	// MaxReplicas bounds SimConfig.Replicas.
	MaxReplicas = 16
	// DefaultTick is how often a replica starts a poll, plus up to a fifth
	// of it at random: every 1000–1200 ms like the reference's services.
	DefaultTick = time.Second
	// maxErrorSample bounds Summary.ErrorSample.
	maxErrorSample = 5
)

// ErrBadConfig: SimConfig cannot run (no Open, a replica count out of
// range, a negative tick or duration).
var ErrBadConfig = errors.New("bad simulation config")

// SimConfig configures Simulate.
type SimConfig struct {
	// Open opens one store; it is called once per replica, so that every
	// replica has its own connection like a separate process. Simulate
	// closes the stores it opened.
	Open func(ctx context.Context) (*store.Store, error)
	// Replicas is how many replicas run (DefaultReplicas when zero).
	Replicas int
	// Tick is how often a replica starts a poll (DefaultTick when zero;
	// a poll that takes longer is followed by the next at once). Handler
	// hangs and lease waits scale with it; the reference's timings (retry
	// backoffs, TTLs) do not.
	Tick time.Duration
	// Duration stops the simulation after it; zero runs until ctx ends.
	Duration time.Duration
	// Seed seeds each replica's random source (replica i uses the PCG
	// stream (Seed, i)), so that a run's choices repeat as far as
	// goroutine timing allows.
	Seed int64
	// Progress, when set, is called after every completed poll cycle with
	// the summary so far, from the replica that completed it (calls are
	// serialised; it must return quickly). A caller that waits for some
	// activity cancels ctx from it instead of guessing how long that
	// activity takes on this machine.
	Progress func(Summary)
}

func (c SimConfig) withDefaults() (SimConfig, error) {
	if c.Replicas == 0 {
		c.Replicas = DefaultReplicas
	}
	if c.Tick == 0 {
		c.Tick = DefaultTick
	}
	switch {
	case c.Open == nil:
		return c, fmt.Errorf("%w: no Open function", ErrBadConfig)
	case c.Replicas < 1 || c.Replicas > MaxReplicas:
		return c, fmt.Errorf("%w: %d replicas; want 1 to %d", ErrBadConfig, c.Replicas, MaxReplicas)
	case c.Tick < time.Millisecond:
		return c, fmt.Errorf("%w: tick %s; want at least 1ms", ErrBadConfig, c.Tick)
	case c.Duration < 0:
		return c, fmt.Errorf("%w: negative duration %s", ErrBadConfig, c.Duration)
	}
	return c, nil
}

// Summary counts what the replicas did. Leases are the request handlers'
// (an alarm firing takes and releases its object's lease inside the
// poller and counts under alarms only).
type Summary struct {
	Replicas  int   `json:"replicas"`
	Seed      int64 `json:"seed"`
	ElapsedMs int64 `json:"elapsedMs"`
	// Polls counts replica poll cycles.
	Polls int64 `json:"polls"`

	LeasesAcquired int64 `json:"leasesAcquired"`
	LeasesReleased int64 `json:"leasesReleased"`
	// LeasesContended counts acquire attempts, by requests and alarm
	// pollers, that found the lease held and waited.
	LeasesContended int64 `json:"leasesContended"`
	// LeaseTimeouts counts requests that gave up on a held lease (a 503).
	LeaseTimeouts int64 `json:"leaseTimeouts"`
	// LeasesAbandoned counts handlers that "crashed" holding their lease,
	// which then lives until its TTL.
	LeasesAbandoned int64 `json:"leasesAbandoned"`

	AlarmsScheduled int64 `json:"alarmsScheduled"`
	AlarmsFired     int64 `json:"alarmsFired"`
	// AlarmsRetried counts failed handlers whose alarm was rescheduled.
	AlarmsRetried int64 `json:"alarmsRetried"`
	// AlarmsDropped counts failures on the last retry: gone without trace.
	AlarmsDropped int64 `json:"alarmsDropped"`
	// AlarmsReposted counts alarms whose object lease was held: re-posted
	// at now without using a retry.
	AlarmsReposted int64 `json:"alarmsReposted"`
	// AlarmsSuperseded counts claimed entries whose by-id record no longer
	// matched (orphans, replaced alarms).
	AlarmsSuperseded int64 `json:"alarmsSuperseded"`
	// AlarmsLost counts due entries another replica claimed first.
	AlarmsLost int64 `json:"alarmsClaimedElsewhere"`

	MessagesSent      int64 `json:"messagesSent"`
	MessagesDelivered int64 `json:"messagesDelivered"`
	// MessagesRedelivered counts deliveries after the first (attempts > 1).
	MessagesRedelivered int64 `json:"messagesRedelivered"`
	MessagesAcked       int64 `json:"messagesAcked"`
	MessagesRequeued    int64 `json:"messagesRequeued"`
	// MessagesDropped counts messages dropped at max attempts.
	MessagesDropped int64 `json:"messagesDropped"`

	CronClaims   int64 `json:"cronClaims"`
	CronTicksWon int64 `json:"cronTicksWon"`

	RowsSwept int64 `json:"rowsSwept"`
	// TTLWrites counts cache and session rows written with a TTL.
	TTLWrites int64 `json:"ttlWrites"`

	// CASCommits and CASConflicts are the request counters' check-and-set
	// increments and the commits that failed their check and retried.
	CASCommits   int64 `json:"casCommits"`
	CASConflicts int64 `json:"casConflicts"`

	// Errors counts store errors (cancellation is not one); ErrorSample
	// keeps the first few messages.
	Errors      int64    `json:"errors"`
	ErrorSample []string `json:"errorSample"`
}

// tally is the Summary the replicas share. One mutex guards it: events
// come at most a few hundred a second, and a locked struct keeps every
// counter in one place and every snapshot consistent.
type tally struct {
	mu  sync.Mutex
	sum Summary
}

// add applies fn to the shared summary.
func (t *tally) add(fn func(s *Summary)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fn(&t.sum)
}

// fail counts err unless it is nil or ctx has ended (a stop, not a fault).
func (t *tally) fail(ctx context.Context, what string, err error) {
	if err == nil || ctx.Err() != nil {
		return
	}
	t.add(func(s *Summary) {
		s.Errors++
		if len(s.ErrorSample) < maxErrorSample {
			s.ErrorSample = append(s.ErrorSample, what+": "+err.Error())
		}
	})
}

// polled counts a completed poll cycle and reports the summary to
// progress, under the lock so that reports arrive in order.
func (t *tally) polled(progress func(Summary)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sum.Polls++
	if progress != nil {
		progress(t.copyLocked())
	}
}

// snapshot returns a copy of the summary.
func (t *tally) snapshot() Summary {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.copyLocked()
}

// copyLocked copies the summary; t.mu is held.
func (t *tally) copyLocked() Summary {
	s := t.sum
	s.ErrorSample = append([]string{}, t.sum.ErrorSample...)
	return s
}

// Simulate runs cfg.Replicas replicas over the store, each on its own
// connection, until ctx ends or cfg.Duration has passed. Every tick a
// replica polls the alarms of every class and the queues through the real
// coord poller and broker (with handlers that sometimes fail, hang while
// holding the object's lease, or leave messages undecided), claims the
// cron ticks, handles a few requests under object leases (check-and-set
// counters, TTL'd cache rows), produces messages and alarms, and sweeps
// expired rows. It returns only after every replica has stopped and its
// store is closed. Store errors are counted in the Summary, not returned:
// the error is non-nil only when cfg is bad or a store cannot be opened.
func Simulate(ctx context.Context, cfg SimConfig) (Summary, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Summary{}, err
	}
	start := time.Now()
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
	}
	stores := make([]*store.Store, 0, cfg.Replicas)
	defer func() {
		for _, s := range stores {
			_ = s.Close()
		}
	}()
	for i := range cfg.Replicas {
		s, err := cfg.Open(ctx)
		if err != nil {
			return Summary{}, fmt.Errorf("open the store of replica %d: %w", i+1, err)
		}
		stores = append(stores, s)
	}
	t := &tally{sum: Summary{Replicas: cfg.Replicas, Seed: cfg.Seed}}
	var wg sync.WaitGroup
	for i, s := range stores {
		r := newReplica(i, s, cfg, t)
		wg.Go(func() { r.run(ctx) })
	}
	wg.Wait()
	sum := t.snapshot()
	sum.ElapsedMs = time.Since(start).Milliseconds()
	return sum, nil
}
