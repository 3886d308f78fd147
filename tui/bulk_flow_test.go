package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

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
	a, _ := journaled(t)
	a.keys("4")
	a.waitFor("QUEUES", "INVOICES")
	before := queueRows(t, a.s, "invoices")
	a.keys("l", " ", " ")
	a.waitFor("2 marked")
	a.keys(";")
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

// TestBulkGolden: the menu and the confirm over Queues' marked messages
// at 120x40 and 80x24.
func TestBulkGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		for _, stage := range []string{"menu", "confirm"} {
			t.Run(fmt.Sprintf("%s_%dx%d", stage, sz.w, sz.h), func(t *testing.T) {
				a := reference(t, false, sz.w, sz.h)
				a.keys("4")
				a.waitFor("QUEUES", "INVOICES")
				a.keys("l", " ", " ")
				a.waitFor("2 marked")
				a.keys(";")
				a.waitFor("Bulk action on 2 messages")
				if stage == "confirm" {
					a.keys("x")
					a.waitFor("Dead-letter 2 messages?")
				}
				golden.RequireEqual(t, a.final().View())
			})
		}
	}
}

// seedRows writes n rows ["bulk", i] = i in one commit.
func seedRows(t *testing.T, s *store.Store, n int) {
	t.Helper()
	sets := make([]store.Mutation, n)
	for i := range sets {
		sets[i] = store.Mutation{Type: store.MutationSet, Key: codec.Key{codec.String("bulk"), codec.Number(float64(i))}, Value: []byte(fmt.Sprint(i))}
	}
	if _, err := s.SetMany(context.Background(), sets); err != nil {
		t.Fatal(err)
	}
}

// countRows counts the rows under ["bulk"].
func countRows(t *testing.T, s *store.Store) int {
	t.Helper()
	p, err := s.List(context.Background(), store.ListOptions{Prefix: codec.Key{codec.String("bulk")}, Limit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	return len(p.Entries)
}

// markAllBulk opens ["bulk"] in Browse, loads the level to its end and
// marks every key shown (/ then tab loads the whole level).
func markAllBulk(a *app, n int) {
	a.command(`goto ["bulk", 0]`)
	a.waitFor(`key     ["bulk", 0]`)
	a.keys("/", "tab")
	a.waitFor(fmt.Sprintf("/%d", n+13)) // the reference's 13 top-level rows, the level's n
	a.keys("enter", "ctrl+a")
	a.waitFor(fmt.Sprintf("%d marked", n))
}

// askBulkDelete marks the n rows of ["bulk"] in Browse and asks for their
// delete (; then d); the dialog says says.
func askBulkDelete(a *app, n int, says ...string) {
	markAllBulk(a, n)
	a.keys(";")
	a.waitFor(fmt.Sprintf("Bulk action on %d keys", n))
	a.keys("d")
	a.waitFor(says...)
}

// runSmallCommits runs the TUI over s with bulk commits of at most 100
// rows, so that a small action takes several.
func runSmallCommits(t *testing.T, s *store.Store, clock *store.VirtualClock) *app {
	t.Helper()
	m := testModel(s, clock, time.Hour)
	m.bulkLimits = store.BulkLimits{Rows: 100}
	return run(t, m, 120, 40)
}

// TestFlowBulkDeleteBudgetOverSqld: over sqld behind the latency proxy
// (50 ms a request), a 1,000-key bulk delete from Browse is 2 commits,
// each one request: the whole run, confirm to done, costs a handful of
// requests (the commits and the tab's reload), not one per key.
func TestFlowBulkDeleteBudgetOverSqld(t *testing.T) {
	s, p, clock := remoteReference(t, 50*time.Millisecond)
	seedRows(t, s, 1000)
	a := start(t, s, clock, 120, 40, time.Hour)
	askBulkDelete(a, 1000, "Delete 1000 keys?", "in 2 checked atomic commits (at most 500 writes per commit);")
	n := requestsFor(p, func() { a.keys("y"); a.waitFor("delete: 1000 of 1000 done in 2 of 2 commits") })
	t.Logf("1,000-key bulk delete over the 50 ms proxy: %d requests (2 commits + the reload)", n)
	if n > 6 {
		t.Errorf("the bulk delete took %d requests, want at most 6 (2 commits, the reload)", n)
	}
	a.final()
	if left := countRows(t, s); left != 0 {
		t.Fatalf("%d rows left", left)
	}
}

// TestFlowBulkStopsBetweenCommits: esc during a run stops it after the
// commit in flight and says how many were done; what was done is done
// whole commits (here of 100), and the rest stays. Over sqld behind a
// slow proxy (200 ms a request), so that esc lands during the run.
func TestFlowBulkStopsBetweenCommits(t *testing.T) {
	s, p, clock := remoteReference(t, 0)
	seedRows(t, s, 1000)
	a := runSmallCommits(t, s, clock)
	askBulkDelete(a, 1000, "in 10 checked atomic commits (at most 100 writes per commit);")
	p.SetDelay(200 * time.Millisecond)
	a.keys("y")
	a.waitFor("esc stops after this commit")
	a.keys("esc")
	a.waitFor("stopped (esc)")
	a.final()
	left := countRows(t, s)
	if left == 0 || left == 1000 || left%100 != 0 {
		t.Fatalf("%d rows left; want whole commits of 100 done, and not all", left)
	}
}

// TestFlowBulkSkipsChangedAndUndoes: Browse marks two keys; another writer
// changes one; the bulk delete deletes the other and skips it (named on
// the flash line), its value kept; z lists the commit as "bulk: delete"
// and undoing it puts the deleted key back.
func TestFlowBulkSkipsChangedAndUndoes(t *testing.T) {
	a, _ := journaled(t)
	seedRows(t, a.s, 3)
	a.command(`goto ["bulk", 0]`)
	a.waitFor(`["bulk", 0]`)
	a.keys(" ", " ")
	a.waitFor("2 marked")
	if _, err := a.s.Set(context.Background(), codec.Key{codec.String("bulk"), codec.Number(1)}, []byte(`"theirs"`), nil); err != nil {
		t.Fatal(err)
	}
	a.keys(";")
	a.waitFor("Bulk action on 2 keys")
	a.keys("d")
	a.waitFor("Delete 2 keys?")
	a.keys("y")
	a.waitFor("delete: 1 of 2 done in 1 of 1 commits; 1 skipped, changed since marked: [\"bulk\", 1]")
	if a.value(`["bulk", 0]`) != "<absent>" || a.value(`["bulk", 1]`) != `"theirs"` {
		t.Fatalf("after: %s %s", a.value(`["bulk", 0]`), a.value(`["bulk", 1]`))
	}
	a.keys("z")
	a.waitFor("bulk: delete")
	a.keys("enter")
	a.waitFor("(no row) → 0")
	a.keys("enter")
	a.waitFor("Puts back 1 key(s)")
	a.keys("y")
	a.waitFor("1 key put back at stamp")
	a.final()
	if a.value(`["bulk", 0]`) != "0" {
		t.Fatalf("after the undo: %s", a.value(`["bulk", 0]`))
	}
}
