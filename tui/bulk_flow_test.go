package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"


	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// queueRows are invoices' messages as "dueAt attempts", in key order.
func queueRows(t *testing.T, s *store.Store, queue string) []string {
	t.Helper()
	p, err := s.List(context.Background(), store.ListOptions{Prefix: codec.Key{codec.String(coord.PrefixQueueDue), codec.String(queue)}})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range p.Entries {
		out = append(out, fmt.Sprintf("%s %s", codec.Format(e.Key[2:3]), e.Value))
	}
	return out
}

// TestFlowBulkQueueRetry: in Queues, space marks two messages (the
// indicator counts them), B offers the queue actions, r asks with the
// count, the first keys and the one commit, and y makes both ready now.
func TestFlowBulkQueueRetry(t *testing.T) {
	a, _ := journaled(t, 120, 40)
	a.keys("4")
	a.waitFor("QUEUES", "INVOICES")
	before := queueRows(t, a.s, "invoices")
	a.keys("l", " ", " ")
	a.waitFor("2 marked")
	a.keys("B")
	a.waitFor("Bulk action on 2 messages", "retry now", "dead-letter", "copy keys")
	a.keys("r")
	a.waitFor("Retry now 2 messages?", "in 1 checked atomic commit;", "esc stops between commits")
	a.keys("y")
	a.waitFor("retry now: 2 of 2 done in 1 of 1 commits")
	a.final()
	after := queueRows(t, a.s, "invoices")
	t.Logf("before %v\nafter %v", before, after)
	now := fmt.Sprint(a.clock.Now())
	if len(after) != len(before) || !strings.HasPrefix(after[0], "["+now+"]") || !strings.HasPrefix(after[1], "["+now+"]") {
		t.Fatalf("after the retry: %v (before %v); want two due now (%s)", after, before, now)
	}
}
