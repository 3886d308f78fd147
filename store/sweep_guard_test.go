package store_test

import (
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// guardRows writes, at T0 (the real clock of these tests): ["x","old"]
// expired a second ago, ["x","lease"] expiring in 30 minutes (live by the
// real clock), ["x","later"] expiring in 2 hours, ["x","forever"] without
// expiry, and ["y","lease"] expiring in 30 minutes outside the prefix.
func guardRows(t *testing.T, s *store.Store) {
	t.Helper()
	mustSet(t, s, `["x", "old"]`, `1`, dur(-time.Second))
	mustSet(t, s, `["x", "lease"]`, `{"holder":"replica-1"}`, dur(30*time.Minute))
	mustSet(t, s, `["x", "later"]`, `3`, dur(2*time.Hour))
	mustSet(t, s, `["x", "forever"]`, `4`, nil)
	mustSet(t, s, `["y", "lease"]`, `5`, dur(30*time.Minute))
}

// present reports whether the store holds a row at k, expired or not.
func present(t *testing.T, s *store.Store, k string) bool {
	t.Helper()
	want := codec.Format(storetest.Key(t, k))
	found := false
	err := s.Dump(storetest.Ctx(t), nil, func(e store.Entry) error {
		found = found || codec.Format(e.Key) == want
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestSweepGuardKeepsRowsLiveByTheRealClock: a sweep at a now an hour
// ahead of the real clock deletes only what the real clock sees expired
// and counts what it kept (a dry run says both numbers); IncludeLive
// sweeps those too; the prefix bounds both the count and the delete.
func TestSweepGuardKeepsRowsLiveByTheRealClock(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		guardRows(t, s)
		real, ahead := c.Now(), c.Now()+time.Hour.Milliseconds()
		x := storetest.Key(t, `["x"]`)
		dry, err := s.Sweep(storetest.Ctx(t), store.SweepOptions{Now: ahead, RealNow: real, Prefix: x, DryRun: true})
		if err != nil || dry.Swept != 1 || dry.LiveByReal != 1 {
			t.Fatalf("dry run under a clock an hour ahead: %+v %v; want 1 to sweep, 1 live by the real clock", dry, err)
		}
		res, err := s.Sweep(storetest.Ctx(t), store.SweepOptions{Now: ahead, RealNow: real, Prefix: x})
		if err != nil || res.Swept != 1 || res.LiveByReal != 1 || res.Remaining != 0 {
			t.Fatalf("guarded sweep: %+v %v; want 1 swept, 1 kept", res, err)
		}
		if present(t, s, `["x", "old"]`) || !present(t, s, `["x", "lease"]`) || !present(t, s, `["y", "lease"]`) {
			t.Fatal("the guarded sweep deleted a live lease or kept an expired row")
		}
		dry, err = s.Sweep(storetest.Ctx(t), store.SweepOptions{Now: ahead, RealNow: real, Prefix: x, DryRun: true, IncludeLive: true})
		if err != nil || dry.Swept != 1 || dry.LiveByReal != 1 {
			t.Fatalf("dry run with IncludeLive: %+v %v", dry, err)
		}
		res, err = s.Sweep(storetest.Ctx(t), store.SweepOptions{Now: ahead, RealNow: real, Prefix: x, IncludeLive: true})
		if err != nil || res.Swept != 1 || res.LiveByReal != 1 {
			t.Fatalf("sweep with IncludeLive: %+v %v", res, err)
		}
		if present(t, s, `["x", "lease"]`) || !present(t, s, `["x", "later"]`) || !present(t, s, `["y", "lease"]`) {
			t.Fatal("IncludeLive: the lease under the prefix must go, nothing else")
		}
		// A clock behind the real one, or no RealNow: no guard.
		res, err = s.Sweep(storetest.Ctx(t), store.SweepOptions{Now: ahead, RealNow: ahead + 1})
		if err != nil || res.Swept != 1 || res.LiveByReal != 0 || present(t, s, `["y", "lease"]`) {
			t.Fatalf("a sweep whose clock is not ahead of the real one: %+v %v", res, err)
		}
	})
}

// TestSweepGuardHoldsInTheDeleteTransaction: between a guarded step's read
// and its delete, a service re-sets a row that the real clock saw expired
// to expire in 30 minutes (live by the real clock, expired at the sweep's
// now): the delete's own transaction spares it.
func TestSweepGuardHoldsInTheDeleteTransaction(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		mustSet(t, s, `["lease"]`, `1`, dur(-time.Second))
		real, ahead := c.Now(), c.Now()+time.Hour.Milliseconds()
		store.SetSweepStepHook(s, func() { mustSet(t, s, `["lease"]`, `2`, dur(30*time.Minute)) })
		res, err := s.Sweep(storetest.Ctx(t), store.SweepOptions{Now: ahead, RealNow: real})
		if err != nil || res.Swept != 0 {
			t.Fatalf("sweep: %+v %v; the re-set row must survive", res, err)
		}
		if !present(t, s, `["lease"]`) {
			t.Fatal("the delete removed a row the real clock sees live")
		}
	})
}
