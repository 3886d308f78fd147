package tui

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

// seedQueue writes n messages to queue, due one ms apart from due0, with
// ids m-00000... and bodies {"n":i}.
func seedQueue(t *testing.T, s *store.Store, queue string, n int, due0 int64) {
	t.Helper()
	sets := make([]store.Mutation, n)
	for i := range sets {
		sets[i] = store.Mutation{Type: store.MutationSet, Key: coord.QueueKey(queue, due0+int64(i), fmt.Sprintf("m-%05d", i)),
			Value: []byte(fmt.Sprintf(`{"body":{"n":%d},"attempts":%d}`, i, i%3))}
	}
	if _, err := s.SetMany(context.Background(), sets); err != nil {
		t.Fatal(err)
	}
}

// checkRetried: queue holds n messages, every one due at now, each id
// once, with its body and attempts kept.
func checkRetried(t *testing.T, s *store.Store, queue string, n int, now int64) {
	t.Helper()
	seen := map[string]bool{}
	err := s.Scan(context.Background(), store.ListOptions{Prefix: codec.Key{codec.String(coord.PrefixQueueDue), codec.String(queue)}}, func(e store.Entry) error {
		due, id := e.Key[2].NumberValue(), e.Key[3].StringValue()
		var i int
		if _, err := fmt.Sscanf(id, "m-%05d", &i); err != nil {
			return err
		}
		want := fmt.Sprintf(`{"body":{"n":%d},"attempts":%d}`, i, i%3)
		if int64(due) != now || seen[id] || string(e.Value) != want {
			return fmt.Errorf("%s = %s (seen before: %v); want due %d, %s, once", codec.Format(e.Key), e.Value, seen[id], now, want)
		}
		seen[id] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != n {
		t.Fatalf("%d messages after the retry, want %d", len(seen), n)
	}
}

// TestFlowMarkAllQueueRetry: in a queue of 3,000 messages (the
// inspection shows 200), ctrl+a marks the 200 shown and offers the rest,
// ctrl+a again reads the queue in pages and marks all 3,000, ; r asks for
// 12 commits (2 writes a message, 500 a commit), and y retries every
// message exactly once; ctrl+a after the run marks the shown again.
func TestFlowMarkAllQueueRetry(t *testing.T) {
	path := storetest.CopyReference(t)
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, path, clock, false)
	seedQueue(t, s, "aaa-bulk", 3000, clock.Now()+time.Hour.Milliseconds())
	a := start(t, s, clock, 120, 40, time.Hour)
	markBulkQueue(a, "3,000")
	a.keys("ctrl+a")
	a.waitFor("3,000 marked: every message of aaa-bulk")
	a.keys(";")
	a.waitFor("Bulk action on 3000 messages", "retry now")
	a.keys("r")
	a.waitFor("Retry now 3000 messages?", "in 12 checked atomic commits (at most 500 writes per commit);")
	a.keys("y")
	a.waitFor("retry now: 3000 of 3000 done in 12 of 12 commits")
	a.final()
	checkRetried(t, s, "aaa-bulk", 3000, clock.Now())
}

// TestFlowMarkAllBudgetOverSqld: over sqld behind the latency proxy (50
// ms a request), marking every message of a 2,000-message queue costs a
// request a page (1,000 rows: 2 pages), not one per message; its retry
// is 8 commits (+ the tab's reload). esc during a reading stops it (a
// third ctrl+a clears).
func TestFlowMarkAllBudgetOverSqld(t *testing.T) {
	s, p, clock := remoteReference(t, 50*time.Millisecond)
	seedQueue(t, s, "aaa-bulk", 2000, clock.Now()+time.Hour.Milliseconds())
	a := start(t, s, clock, 120, 40, time.Hour)
	markBulkQueue(a, "2,000")
	n := requestsFor(p, func() { a.keys("ctrl+a"); a.waitFor("2,000 marked: every message of aaa-bulk") })
	t.Logf("marking all 2,000 messages over the 50 ms proxy: %d requests", n)
	if n > 3 {
		t.Errorf("marking all took %d requests, want at most 3 (2 pages of 1,000)", n)
	}
	a.keys(";")
	a.waitFor("Bulk action on 2000 messages")
	a.keys("r")
	a.waitFor("Retry now 2000 messages?", "in 8 checked atomic commits (at most 500 writes per commit);")
	n = requestsFor(p, func() { a.keys("y"); a.waitFor("retry now: 2000 of 2000 done in 8 of 8 commits") })
	t.Logf("retrying 2,000 marked messages: %d requests", n)
	if n > 12 {
		t.Errorf("the retry took %d requests, want at most 12 (8 commits, the reload)", n)
	}
	a.final()
	checkRetried(t, s, "aaa-bulk", 2000, clock.Now())
}

// markBulkQueue shows the messages of the queue aaa-bulk (n of them, as
// the tab writes the number) and marks the 200 shown (ctrl+a).
func markBulkQueue(a *app, n string) {
	a.t.Helper()
	a.keys("4")
	a.waitFor("QUEUES", "aaa-bulk", "m-00000")
	a.keys("l", "ctrl+a")
	a.waitFor("200 of " + n + " marked · ctrl+a again: all " + n + " in the queue")
}
