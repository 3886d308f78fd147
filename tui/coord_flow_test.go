package tui

import (
	"context"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

// The coordination tabs in the real runtime: commands on their own
// goroutines, the confirm dialog and the flash line of the root.

// TestFlowLeaseBreakConflict: the lease is released and re-acquired by
// another holder between the dialog and the confirmation: nothing is
// broken and the flash says why.
func TestFlowLeaseBreakConflict(t *testing.T) {
	a := reference(t, false, 120, 40)
	ctx := context.Background()
	k := coord.LeaseKey("Cart", "0e580e53fa979546f8fe4c7ac68c99f9")
	a.keys("2")
	a.waitFor("LEASES", "0e580e53fa97954", "00000000000000000049")
	a.keys("B")
	a.waitFor("Break this lease?", "00000000000000000049")
	if err := a.s.Delete(ctx, k); err != nil {
		t.Fatal(err)
	}
	l, err := coord.AcquireKey(ctx, a.s, k, coord.LeaseOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	a.keys("y")
	a.waitFor("not broken: you saw")
	a.final()
	e, found, err := a.s.Get(ctx, k)
	if err != nil || !found || e.Versionstamp() != l.Versionstamp {
		t.Fatalf("the re-acquired lease was touched: %+v %v %v", e, found, err)
	}
}

// TestFlowQueuePollMixedDecisions: poll a batch, ack one, retry one after
// 20s, nack one (backoff) and leave one on its final attempt undecided
// (dropped); the store holds what a consumer would have left.
func TestFlowQueuePollMixedDecisions(t *testing.T) {
	a := reference(t, false, 120, 40)
	seedJobs(t, a.s)
	a.keys("4", "ctrl+r") // the refresh runs hourly here: reload by hand
	a.waitFor("QUEUES", "jobs")
	pollMixed(t, a, "j") // invoices, jobs, thumbnails
}

// TestFlowCoordOnSqld: the poll with mixed decisions, the consumer's
// handler waiting for the operator, and a lease break that meets a new
// lease, on a real sqld over HTTP.
func TestFlowCoordOnSqld(t *testing.T) {
	srv := sqldtest.Start(t)
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, srv.URL, clock, false)
	ctx := context.Background()
	if _, err := s.Set(ctx, codec.Key{codec.String("accounts"), codec.String("acme")}, []byte(`true`), nil); err != nil {
		t.Fatal(err)
	}
	k := coord.LeaseKey("Cart", "0e580e53fa979546f8fe4c7ac68c99f9")
	old, err := coord.AcquireKey(ctx, s, k, coord.LeaseOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	seedJobs(t, s)
	a := start(t, s, clock, 120, 40, time.Hour, "remote http")
	a.keys("4")
	a.waitFor("QUEUES", "jobs")
	pollMixed(t, a)

	a = start(t, s, clock, 120, 40, time.Hour, "remote http")
	a.keys("2")
	a.waitFor("LEASES", old.Versionstamp)
	a.keys("B")
	a.waitFor("Break this lease?")
	if _, err := coord.Release(ctx, s, old); err != nil {
		t.Fatal(err)
	}
	l, err := coord.AcquireKey(ctx, s, k, coord.LeaseOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	a.keys("y")
	a.waitFor("not broken: you saw")
	a.final()
	if e, found, _ := s.Get(ctx, k); !found || e.Versionstamp() != l.Versionstamp {
		t.Fatalf("the new lease was touched: %+v %v", e, found)
	}
}

// seedJobs writes four due messages on queue jobs at storetest.T0: two
// fresh ones, one delivered once, one delivered four times.
func seedJobs(t *testing.T, s *store.Store) {
	t.Helper()
	for i, v := range []string{`{"body":1,"attempts":0}`, `{"body":2,"attempts":0}`, `{"body":3,"attempts":1}`, `{"body":4,"attempts":4}`} {
		id := string(rune('a' + i))
		if _, err := s.Set(context.Background(), coord.QueueKey("jobs", storetest.T0-int64(4-i)*1000, id), []byte(v), nil); err != nil {
			t.Fatal(err)
		}
	}
}

// pollMixed polls jobs (reached from the queue list with nav): ack a,
// retry b after 20s, nack c, leave d undecided; then checks the store
// and quits.
func pollMixed(t *testing.T, a *app, nav ...string) {
	t.Helper()
	a.keys(append(nav, "t")...)
	a.waitFor("Poll jobs: claim 4 of its 4 ready message(s)?")
	a.keys("y")
	a.waitFor("CLAIMED 4 MESSAGE(S) OF jobs")
	a.keys("a", "e", "ctrl+u")
	a.tm.Type("20s")
	a.keys("enter", "b")
	a.waitFor("retry after 20s")
	a.keys("enter")
	a.waitFor("Apply these decisions?", "1 consumed, 2 requeued, 1 dropped")
	a.keys("y")
	a.waitFor("polled jobs: 1 acked, 2 requeued, 1 dropped")
	a.final()
	now := storetest.T0
	p, err := a.s.List(context.Background(), store.ListOptions{Prefix: codec.Key{codec.String(coord.PrefixQueueDue), codec.String("jobs")}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		codec.Format(coord.QueueKey("jobs", now+20000, "b")): `{"body":2,"attempts":1}`,
		codec.Format(coord.QueueKey("jobs", now+2000, "c")):  `{"body":3,"attempts":2}`,
	}
	if len(p.Entries) != len(want) {
		t.Fatalf("jobs after the poll: %d rows, want %d", len(p.Entries), len(want))
	}
	for _, e := range p.Entries {
		if w, ok := want[codec.Format(e.Key)]; !ok || w != string(e.Value) {
			t.Errorf("unexpected row %s = %s", codec.Format(e.Key), e.Value)
		}
	}
}

// TestFlowCoordLiveRefresh: leases taken and messages sent by another
// writer show on the Leases and Queues tabs within the refresh interval.
func TestFlowCoordLiveRefresh(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, storetest.CopyReference(t), clock, false)
	a := start(t, s, clock, 120, 40, 100*time.Millisecond)
	ctx := context.Background()
	a.keys("2")
	a.waitFor("LEASES", "0e580e53fa97954")
	if _, err := coord.Acquire(ctx, s, "Zeppelin", "5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a", coord.LeaseOptions{Timeout: -1}); err != nil {
		t.Fatal(err)
	}
	a.waitFor("Zeppelin")
	a.keys("4")
	a.waitFor("QUEUES", "invoices")
	if _, err := coord.Send(ctx, s, "webhooks", []byte(`{"hook":1}`), 0); err != nil {
		t.Fatal(err)
	}
	a.waitFor("webhooks")
	a.final()
}

// TestFlowLeaseAcquireRelease: acquire a lease as kvdeck with a TTL, then
// release it (kvdeck remembers the stamp it acquired at).
func TestFlowLeaseAcquireRelease(t *testing.T) {
	a := reference(t, false, 120, 40)
	ctx := context.Background()
	k := coord.LeaseKey("Cart", "abcabcabcabcabcabcabcabcabcabc12")
	a.keys("2")
	a.waitFor("LEASES", "0e580e53fa97954")
	a.keys("n", "ctrl+u")
	a.tm.Type(codec.Format(k))
	a.keys("tab", "ctrl+u")
	a.tm.Type("45s")
	a.waitFor("lapses at 2026-01-02T00:00:45Z")
	a.keys("enter")
	a.waitFor("acquired " + codec.Format(k))
	e, found, err := a.s.Get(ctx, k)
	if err != nil || !found || e.ExpiresAt == nil || *e.ExpiresAt != storetest.T0+45000 {
		t.Fatalf("lease %+v %v %v", e, found, err)
	}
	a.keys("d")
	a.waitFor("Release this lease?")
	a.keys("y")
	a.waitFor("released " + codec.Format(k))
	a.final()
	if _, found, _ := a.s.Get(ctx, k); found {
		t.Fatal("still held after release")
	}
}

// TestFlowAlarmActions: set an alarm, reschedule it, delete it, and fire
// the class's overdue alarm, each through the real runtime.
func TestFlowAlarmActions(t *testing.T) {
	a := reference(t, false, 120, 40)
	ctx := context.Background()
	const id = "abcabcabcabcabcabcabcabcabcabc12"
	a.keys("3")
	a.waitFor("CLASSES", "CART")
	a.keys("l", "n")
	a.waitFor("SET AN ALARM")
	a.tm.Type(id)
	a.keys("enter")
	a.waitFor("set Cart/"+id, "due 2026-01-02T00:00:30Z")
	a.keys("e", "ctrl+u")
	a.tm.Type("+1m")
	a.keys("enter")
	a.waitFor("set Cart/"+id, "due 2026-01-02T00:01:00Z")
	if rec, ok, err := coord.GetAlarm(ctx, a.s, "Cart", id); err != nil || !ok || rec.EpochMs != storetest.T0+60000 {
		t.Fatalf("rescheduled alarm %+v %v %v", rec, ok, err)
	}
	a.keys("d")
	a.waitFor("Delete this alarm?")
	a.keys("y")
	a.waitFor("deleted the alarm Cart/" + id)
	a.keys("f")
	a.waitFor("Fire 1 due alarm(s) of Cart now?")
	a.keys("y")
	a.waitFor("fired Cart at 2026-01-02T00:00:00Z: 1 fired", "FIRED AT")
	a.final()
	for _, gone := range []string{id, "acf595e529879b45adcc5da2d4402629"} {
		if _, ok, _ := coord.GetAlarm(ctx, a.s, "Cart", gone); ok {
			t.Errorf("alarm Cart/%s still set", gone)
		}
	}
}

// TestFlowQueueSendPeekPurge: send a message with a delay, peek at its
// body, purge the queue (the dialog counts the messages).
func TestFlowQueueSendPeekPurge(t *testing.T) {
	a := reference(t, false, 120, 40)
	ctx := context.Background()
	a.keys("4")
	a.waitFor("QUEUES", "INVOICES")
	a.keys("n", "ctrl+u")
	a.tm.Type(`{"k": 1}`)
	a.keys("tab")
	a.tm.Type("5s")
	a.waitFor("✓ valid JSON · 7 bytes", "due 2026-01-02T00:00:05Z (in 5s)")
	a.keys("enter")
	a.waitFor("sent ", "to invoices, due 2026-01-02T00:00:05Z")
	a.keys("enter")
	a.waitFor("BODY OF", `"k": 1`)
	a.keys("esc", "d")
	a.waitFor("Purge invoices: delete its 4 message(s)?")
	a.keys("y")
	a.waitFor("purged invoices: 4 message(s) deleted")
	a.final()
	p, err := a.s.List(ctx, store.ListOptions{Prefix: codec.Key{codec.String(coord.PrefixQueueDue), codec.String("invoices")}, IncludeExpired: true})
	if err != nil || len(p.Entries) != 0 {
		t.Fatalf("invoices after purge: %d rows, %v", len(p.Entries), err)
	}
}

// TestJumpBetweenRowsAndBrowse: o on a lease shows its raw row in Browse;
// o there goes back to Leases with that lease selected; o on an alarm and
// on a queue message shows their rows too.
func TestJumpBetweenRowsAndBrowse(t *testing.T) {
	a := reference(t, false, 120, 40)
	// The hex line is Browse's alone (Leases' detail shows the key too):
	// o must not be pressed before Browse has the row selected.
	a.leaseInBrowse("hex     0264776b5f6c656173650002546963")
	a.keys("o")
	a.waitFor("[2 Leases]")
	a.keys("3")
	a.waitFor("CLASSES", "due entries") // loaded: l has alarms to go to
	a.keys("l", "o")
	// Browse's hex line again: the key line is in Alarms' detail too, and
	// a match there let 4 be pressed before the jump landed (it then
	// landed on top of Queues).
	a.waitFor("[1 Browse]", "hex     0264776b5f616c61726d5f647565")
	a.keys("4")
	a.waitFor("QUEUES", "ready ·") // loaded: l has messages to go to
	a.keys("l", "o")
	a.waitFor("[1 Browse]", "hex     0264776b5f71756575655f647565")
	m := a.final()
	if m.tab != tabBrowse {
		t.Fatalf("ended on %v", m.tab)
	}
	if r, ok := m.tabs.leases.Selected(); !ok || codec.Format(r) != `["dwk_lease", "Ticker", "234f594be1ed8ecc8c4d393b295c02f3"]` {
		t.Fatalf("Leases selects %v after the jump back", r)
	}
}

// TestJumpFromBrowseSelectsTheRecord: o on a dwk_alarm_* or dwk_queue_due
// row in Browse shows Alarms or Queues with that alarm or message
// selected, as it does for Leases (they only switched tabs).
func TestJumpFromBrowseSelectsTheRecord(t *testing.T) {
	a := reference(t, false, 120, 40)
	a.keys("3")
	a.waitFor("CLASSES", "due entries")
	a.keys("l", "j", "o") // the second alarm's row in Browse
	a.waitFor("[1 Browse]", `key     ["dwk_alarm_due", "Cart", 1767312015000`)
	a.keys("3", "g") // back on the first alarm
	a.waitFor("[3 Alarms]", "1/2")
	a.keys("1") // o once Browse shows the row again (it reloads on the switch)
	a.waitFor("[1 Browse]", `key     ["dwk_alarm_due", "Cart", 1767312015000`)
	a.keys("o")
	a.waitFor("[3 Alarms]", "2/2")
	a.keys("4")
	a.waitFor("QUEUES", "ready ·")
	a.keys("l", "j", "o")
	a.waitFor("[1 Browse]", `key     ["dwk_queue_due", "invoices"`)
	a.keys("4", "g")
	a.waitFor("[4 Queues]", "1/3")
	a.keys("1")
	a.waitFor("[1 Browse]", `key     ["dwk_queue_due", "invoices"`)
	a.keys("o")
	a.waitFor("[4 Queues]", "2/3")
	m := a.final()
	if it, ok := m.tabs.alarms.Selected(); !ok || it[len(it)-1].StringValue() != "0e580e53fa979546f8fe4c7ac68c99f9" {
		t.Errorf("Alarms selects %v after the jump", it)
	}
	if it, ok := m.tabs.queues.Selected(); !ok || it[len(it)-1].StringValue() != "7d3f0a1e-0000-4b1a-9c2d-00000000a001" {
		t.Errorf("Queues selects %v after the jump", it)
	}
}
