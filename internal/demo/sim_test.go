package demo_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/demo"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// opener opens url on the real clock for each replica.
func opener(url string) func(ctx context.Context) (*store.Store, error) {
	return func(ctx context.Context) (*store.Store, error) { return store.Open(ctx, url, store.Options{}) }
}

// idleCounters names the counters of sum that are still zero: on a
// freshly seeded store every kind of movement shows up, given time.
func idleCounters(sum demo.Summary) []string {
	var idle []string
	for _, c := range []struct {
		name string
		n    int64
	}{
		{"polls", sum.Polls}, {"leases acquired", sum.LeasesAcquired}, {"leases released", sum.LeasesReleased},
		{"alarms fired", sum.AlarmsFired}, {"alarms retried", sum.AlarmsRetried}, {"alarms dropped", sum.AlarmsDropped},
		{"alarms scheduled", sum.AlarmsScheduled}, {"messages sent", sum.MessagesSent},
		{"messages delivered", sum.MessagesDelivered}, {"messages redelivered", sum.MessagesRedelivered},
		{"messages acked", sum.MessagesAcked}, {"messages dropped", sum.MessagesDropped},
		{"cron ticks won", sum.CronTicksWon}, {"rows swept", sum.RowsSwept}, {"TTL writes", sum.TTLWrites},
		{"CAS commits", sum.CASCommits},
	} {
		if c.n <= 0 {
			idle = append(idle, c.name)
		}
	}
	return idle
}

// On a freshly seeded store the replicas show every kind of movement:
// leases taken and released, alarms fired, retried and dropped, messages
// delivered, redelivered and dropped, ticks won, rows swept; and no store
// error. The seed's poison alarm on its last retry is due 2 s after
// seeding, the one with a retry left 3 s after. The test waits for the
// events, not for a time: it stops the simulation from Progress once every
// counter has moved (a few seconds on an idle machine; a loaded one only
// takes longer). The bound is the context's, long enough to mean "never".
func TestSimulateMovesTheStore(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		seedDemo(t, url, 1)
		ctx, cancel := context.WithCancel(storetest.CtxTimeout(t, 3*time.Minute))
		defer cancel()
		sum, err := demo.Simulate(ctx, demo.SimConfig{Open: opener(url), Tick: 150 * time.Millisecond, Seed: 1,
			Progress: func(sum demo.Summary) {
				if len(idleCounters(sum)) == 0 {
					cancel()
				}
			}})
		must(t, err)
		t.Logf("%+v", sum)
		if idle := idleCounters(sum); len(idle) > 0 {
			t.Errorf("after %d ms and %d polls, nothing counted for: %s", sum.ElapsedMs, sum.Polls, strings.Join(idle, ", "))
		}
		if sum.Errors != 0 {
			t.Errorf("%d store errors: %v", sum.Errors, sum.ErrorSample)
		}
		if sum.Replicas != demo.DefaultReplicas || sum.Seed != 1 {
			t.Errorf("summary header %d replicas, seed %d", sum.Replicas, sum.Seed)
		}
		storetest.NoGoroutinesOf(t, "kvdeck/internal/demo", "Simulate")
	})
}

// Cancelling the context stops every replica: none starts another poll
// cycle (at most the others finish the step they are in), and Simulate
// returns only when all have stopped. The cancel comes from Progress
// after a few polls, when replicas are mid-request, mid-hang or
// mid-lease-wait; a stop that hangs would fail by the test's timeout.
func TestSimulateStopsOnCancel(t *testing.T) {
	url := "file:" + t.TempDir() + "/demo.db"
	seedDemo(t, url, 2)
	const replicas = 5
	c, cancel := context.WithCancel(storetest.Ctx(t))
	defer cancel()
	var atCancel int64
	var cancelled time.Time
	sum, err := demo.Simulate(c, demo.SimConfig{Open: opener(url), Tick: 100 * time.Millisecond, Seed: 2, Replicas: replicas,
		Progress: func(sum demo.Summary) {
			if sum.Polls >= 2*replicas && atCancel == 0 {
				atCancel = sum.Polls
				cancelled = time.Now()
				cancel()
			}
		}})
	must(t, err)
	t.Logf("stopped %s after the cancel", time.Since(cancelled))
	if atCancel == 0 {
		t.Fatalf("Simulate returned before the cancel: %+v", sum)
	}
	if sum.Polls > atCancel+replicas-1 {
		t.Errorf("%d polls at the cancel, %d in the end: a replica started a poll after the cancel", atCancel, sum.Polls)
	}
	if sum.Errors != 0 {
		t.Errorf("errors %d %v", sum.Errors, sum.ErrorSample)
	}
	storetest.NoGoroutinesOf(t, "kvdeck/internal/demo", "Simulate")
}

// Duration stops the simulation on its own: never before it has passed.
func TestSimulateStopsAfterDuration(t *testing.T) {
	url := "file:" + t.TempDir() + "/demo.db"
	seedDemo(t, url, 3)
	sum, err := demo.Simulate(storetest.Ctx(t), demo.SimConfig{Open: opener(url), Tick: 50 * time.Millisecond, Seed: 3, Replicas: 1, Duration: 300 * time.Millisecond})
	must(t, err)
	if sum.ElapsedMs < 300 || sum.Errors != 0 {
		t.Errorf("stopped after %d ms (want >= 300), errors %d %v", sum.ElapsedMs, sum.Errors, sum.ErrorSample)
	}
}

func TestSimulateRefusesABadConfig(t *testing.T) {
	url := "file:" + t.TempDir() + "/demo.db"
	for _, cfg := range []demo.SimConfig{
		{},
		{Open: opener(url), Replicas: demo.MaxReplicas + 1},
		{Open: opener(url), Replicas: -1},
		{Open: opener(url), Tick: time.Microsecond},
		{Open: opener(url), Duration: -time.Second},
	} {
		if _, err := demo.Simulate(storetest.Ctx(t), cfg); !errors.Is(err, demo.ErrBadConfig) {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	// A replica whose store cannot be opened: an error, and the stores
	// already opened are closed.
	n := 0
	failing := func(c context.Context) (*store.Store, error) {
		if n++; n == 2 {
			return nil, errors.New("no route to host")
		}
		return opener(url)(c)
	}
	if _, err := demo.Simulate(storetest.Ctx(t), demo.SimConfig{Open: failing}); err == nil {
		t.Fatal("Simulate with a failing Open returned no error")
	}
}
