package demo_test

import (
	"context"
	"errors"
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

// On a freshly seeded store, a few seconds of fast ticks show every kind
// of movement: leases taken and released, alarms fired, retried and
// dropped, messages delivered, redelivered and dropped, ticks won, rows
// swept; and no store error. The seed's poison alarm on its last retry is
// due 2 s after seeding, the one with a retry left 3 s after.
func TestSimulateMovesTheStore(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{})
		_, err := demo.Seed(storetest.Ctx(t), s, 1, s.Now())
		must(t, err)
		sum, err := demo.Simulate(storetest.Ctx(t), demo.SimConfig{Open: opener(url), Tick: 150 * time.Millisecond, Duration: 4 * time.Second, Seed: 1})
		must(t, err)
		t.Logf("%+v", sum)
		for name, n := range map[string]int64{
			"polls": sum.Polls, "leases acquired": sum.LeasesAcquired, "leases released": sum.LeasesReleased,
			"alarms fired": sum.AlarmsFired, "alarms retried": sum.AlarmsRetried, "alarms dropped": sum.AlarmsDropped,
			"alarms scheduled": sum.AlarmsScheduled, "messages sent": sum.MessagesSent,
			"messages delivered": sum.MessagesDelivered, "messages redelivered": sum.MessagesRedelivered,
			"messages acked": sum.MessagesAcked, "messages dropped": sum.MessagesDropped,
			"cron ticks won": sum.CronTicksWon, "rows swept": sum.RowsSwept, "TTL writes": sum.TTLWrites,
			"CAS commits": sum.CASCommits,
		} {
			if n <= 0 {
				t.Errorf("%s: %d, want > 0", name, n)
			}
		}
		if sum.Errors != 0 {
			t.Errorf("%d store errors: %v", sum.Errors, sum.ErrorSample)
		}
		if sum.Replicas != demo.DefaultReplicas || sum.Seed != 1 || sum.ElapsedMs < 4000 {
			t.Errorf("summary header %d replicas, seed %d, %d ms", sum.Replicas, sum.Seed, sum.ElapsedMs)
		}
		if gs := demoGoroutines(); len(gs) > 0 {
			t.Fatalf("goroutines still running demo code after Simulate returned:\n%s", gs[0])
		}
	})
}

// Cancelling the context stops every replica promptly, even mid-hang or
// mid-lease-wait, and Simulate returns only when all have stopped.
func TestSimulateStopsOnCancel(t *testing.T) {
	url := "file:" + t.TempDir() + "/demo.db"
	s := storetest.Open(t, url, store.Options{})
	_, err := demo.Seed(storetest.Ctx(t), s, 2, s.Now())
	must(t, err)
	c, cancel := context.WithCancel(storetest.Ctx(t))
	time.AfterFunc(700*time.Millisecond, cancel)
	start := time.Now()
	sum, err := demo.Simulate(c, demo.SimConfig{Open: opener(url), Tick: 100 * time.Millisecond, Seed: 2, Replicas: 5})
	must(t, err)
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("Simulate took %s to stop after a cancel at 700ms", took)
	}
	if sum.Polls == 0 || sum.Errors != 0 {
		t.Errorf("polls %d, errors %d %v", sum.Polls, sum.Errors, sum.ErrorSample)
	}
	if gs := demoGoroutines(); len(gs) > 0 {
		t.Fatalf("goroutines still running demo code after Simulate returned:\n%s", gs[0])
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
