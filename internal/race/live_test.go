package race_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/race"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// checkTotals: the totals are the sums of the per-worker figures, and
// every attempt either succeeded or conflicted.
func checkTotals(t *testing.T, res race.Result) {
	t.Helper()
	var sum race.WorkerStats
	for _, w := range res.Workers {
		sum.Attempts += w.Attempts
		sum.Successes += w.Successes
		sum.Conflicts += w.Conflicts
	}
	if sum != res.WorkerStats {
		t.Errorf("totals %+v, per-worker sum %+v", res.WorkerStats, sum)
	}
	if res.Attempts != res.Successes+res.Conflicts {
		t.Errorf("attempts %d != successes %d + conflicts %d", res.Attempts, res.Successes, res.Conflicts)
	}
}

// runRace runs a race on the counter of the store at url (cfg's Open and
// Key set here), ending the test on an error, and checks its totals.
func runRace(t *testing.T, url string, cfg race.Config) race.Result {
	t.Helper()
	cfg.Open, cfg.Key = opener(url), counterKey
	res, err := race.Run(ctx(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkTotals(t, res)
	return res
}

// TestLiveCAS: 4 workers with read / check / set / retry end at
// start + successes, every worker made its increments, nothing was lost.
func TestLiveCAS(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, db storetest.Backend) {
		url := db.URL(t)
		s := storetest.Open(t, url, store.Options{})
		set(t, s, `{"n":10,"owner":"someone else"}`)
		res := runRace(t, url, race.Config{Workers: 4, Increments: 25})
		if res.Start != 10 || res.Successes != 100 || res.Expected != 110 || res.Final != 110 || res.LostUpdates != 0 || res.OtherWrites != 0 {
			t.Fatalf("result %+v", res)
		}
		for i, w := range res.Workers {
			if w.Successes != 25 {
				t.Errorf("worker %d: %d successes, want 25", i+1, w.Successes)
			}
		}
		if got := read(t, s).N; got != 110 {
			t.Fatalf("counter %d, want 110", got)
		}
		t.Logf("attempts %d, conflicts %d (%.1f%%), elapsed %s", res.Attempts, res.Conflicts, 100*res.ConflictRate(), res.Elapsed)
	})
}

// TestLiveCASLockstep: with every worker reading before any writes, each
// round has exactly one winner, and still nothing is lost.
func TestLiveCASLockstep(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, db storetest.Backend) {
		res := runRace(t, db.URL(t), race.Config{Workers: 3, Increments: 4, Lockstep: true})
		if res.Start != 0 || res.Final != 12 || res.LostUpdates != 0 {
			t.Fatalf("result %+v", res)
		}
		// Each round: one winner, every other worker still racing loses.
		// Fewest losses: one worker wins its 4 rounds against 2 others (8),
		// the next its 4 against 1 (4).
		if res.Conflicts < 12 {
			t.Fatalf("%d conflicts; lockstep guarantees at least 12", res.Conflicts)
		}
	})
}

// TestLiveNaiveLosesUpdates: without the check, lockstep workers all write
// the same n+1 each round: W-1 of every W updates are lost, every time.
func TestLiveNaiveLosesUpdates(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, db storetest.Backend) {
		const workers, increments = 4, 10
		res := runRace(t, db.URL(t), race.Config{Workers: workers, Increments: increments, Naive: true, Lockstep: true})
		if res.Attempts != workers*increments || res.Successes != workers*increments || res.Conflicts != 0 {
			t.Fatalf("naive figures %+v", res.WorkerStats)
		}
		if res.Final != increments || res.Final >= res.Attempts || res.LostUpdates != (workers-1)*increments {
			t.Fatalf("final %d, lost %d; want %d and %d", res.Final, res.LostUpdates, increments, (workers-1)*increments)
		}
	})
}

// TestLiveNaiveFreeRunning: a naive race without lockstep never ends above
// what it wrote, and whatever it lost is accounted for exactly.
func TestLiveNaiveFreeRunning(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, db storetest.Backend) {
		res := runRace(t, db.URL(t), race.Config{Workers: 4, Increments: 25, Naive: true})
		if res.Final > res.Successes || res.Final+res.LostUpdates != res.Expected {
			t.Fatalf("result %+v", res)
		}
		t.Logf("naive, free running: final %d of %d, %d lost", res.Final, res.Attempts, res.LostUpdates)
	})
}

// TestLiveNotACounter: a key holding "text" stops the race before any
// write, with an error that names the key and what it holds.
func TestLiveNotACounter(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, db storetest.Backend) {
		url := db.URL(t)
		s := storetest.Open(t, url, store.Options{})
		stamp := set(t, s, `"text"`)
		res, err := race.Run(ctx(t), race.Config{Open: opener(url), Key: counterKey, Workers: 2, Increments: 3})
		if !errors.Is(err, race.ErrNotCounter) {
			t.Fatalf("err = %v, want ErrNotCounter", err)
		}
		for _, want := range []string{`["race", "counter"]`, `"text"`, `{"n": <integer>}`} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %s", err, want)
			}
		}
		if res.Attempts != 0 {
			t.Fatalf("%d attempts on a bad counter", res.Attempts)
		}
		e, _, err := s.Get(ctx(t), counterKey)
		if err != nil || string(e.Value) != `"text"` || e.Versionstamp() != stamp {
			t.Fatalf("the key was written: %s at %s (%v)", e.Value, e.Versionstamp(), err)
		}
	})
}

// TestLiveCancel: cancelling stops every worker; Wait reports the figures
// so far, the final value is re-read and nothing was lost. Snapshot is
// polled meanwhile, as a UI would (the race detector watches).
func TestLiveCancel(t *testing.T) {
	url := "file:" + t.TempDir() + "/kv.db"
	c, cancel := context.WithCancel(ctx(t))
	defer cancel()
	r, err := race.Start(c, race.Config{Open: opener(url), Key: counterKey, Workers: 4, Increments: 100000})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for r.Snapshot().Successes < 20 {
		if time.Now().After(deadline) {
			t.Fatal("no progress")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if p := r.Snapshot().Phase; p != race.PhaseRunning {
		t.Fatalf("phase %s while running", p)
	}
	cancel()
	res, err := r.Wait()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	snap := r.Snapshot()
	if snap.Phase != race.PhaseDone || snap.Successes != res.Successes || snap.Elapsed != res.Elapsed {
		t.Fatalf("snapshot after the end %+v, result %+v", snap, res)
	}
	// A commit cut off by the cancellation may have landed unreported:
	// then the counter is one above, never below.
	if res.LostUpdates != 0 || res.Final < res.Expected || res.Final > res.Expected+4 {
		t.Fatalf("final %d, expected %d", res.Final, res.Expected)
	}
}

// TestConfigRefused: a config that cannot race is refused by Start.
func TestConfigRefused(t *testing.T) {
	good := race.Config{Open: opener("file:x"), Key: counterKey, Workers: 1, Increments: 1}
	for name, mut := range map[string]func(*race.Config){
		"no open":       func(c *race.Config) { c.Open = nil },
		"0 workers":     func(c *race.Config) { c.Workers = 0 },
		"many workers":  func(c *race.Config) { c.Workers = race.MaxWorkers + 1 },
		"0 increments":  func(c *race.Config) { c.Increments = 0 },
		"negative incr": func(c *race.Config) { c.Increments = -1 },
	} {
		cfg := good
		mut(&cfg)
		if _, err := race.Start(context.Background(), cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestLiveOneReadOneCommitPerAttempt: over HTTP behind the latency proxy,
// an attempt is one read and one commit request, a lost one included (it
// is retried, not explained); the race adds a read before and after.
func TestLiveOneReadOneCommitPerAttempt(t *testing.T) {
	srv := sqldtest.Start(t)
	p := sqldtest.StartProxy(t, srv.URL, 2*time.Millisecond)
	var opened []*store.Store
	for range 3 {
		opened = append(opened, storetest.Open(t, p.URL, store.Options{}))
	}
	next := 0
	var res race.Result
	var err error
	n := p.Count(func() {
		res, err = race.Run(ctx(t), race.Config{Open: func(context.Context) (*store.Store, error) { next++; return opened[next-1], nil }, Key: counterKey, Workers: 3, Increments: 3, Lockstep: true})
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Conflicts == 0 {
		t.Fatalf("lockstep without a conflict: %+v", res)
	}
	if want := 2 + 2*res.Attempts; n != want {
		t.Errorf("%d attempts (%d lost) took %d requests, want %d (one read and one commit each, plus the first and last read)", res.Attempts, res.Conflicts, n, want)
	}
}
