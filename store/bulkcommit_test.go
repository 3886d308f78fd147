package store_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

func bulkKey(i int) codec.Key { return codec.Key{codec.String("bulk"), codec.Number(float64(i))} }

// seedBulk writes n rows ["bulk", i] in one commit and returns their stamp.
func seedBulk(t *testing.T, s *store.Store, n int) string {
	t.Helper()
	sets := make([]store.Mutation, n)
	for i := range sets {
		sets[i] = store.Mutation{Type: store.MutationSet, Key: bulkKey(i), Value: []byte(fmt.Sprintf(`{"i":%d}`, i))}
	}
	res, err := s.SetMany(storetest.Ctx(t), sets)
	if err != nil {
		t.Fatal(err)
	}
	return res.Versionstamp
}

// TestCommitBulkSkipsChangedRows: a bulk delete of marked rows deletes
// those still at the stamp seen when marked, and skips (reports, keeps)
// a row rewritten since and a row already deleted: never an overwrite.
func TestCommitBulkSkipsChangedRows(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		stamp := seedBulk(t, s, 6)
		var units []store.BulkUnit
		for i := range 6 {
			units = append(units, store.DeleteUnit(bulkKey(i), stamp))
		}
		mustSet(t, s, `["bulk", 2]`, `"theirs"`, nil)
		if err := s.Delete(storetest.Ctx(t), bulkKey(4)); err != nil {
			t.Fatal(err)
		}
		out, err := s.CommitBulk(storetest.Ctx(t), units)
		if err != nil {
			t.Fatal(err)
		}
		var skipped []string
		for _, k := range out.Skipped {
			skipped = append(skipped, codec.Format(k))
		}
		if out.Applied != 4 || strings.Join(skipped, " ") != `["bulk", 2] ["bulk", 4]` {
			t.Fatalf("applied %d, skipped %v; want 4 and rows 2 and 4", out.Applied, skipped)
		}
		e, found, err := s.Get(storetest.Ctx(t), bulkKey(2))
		if err != nil || !found || string(e.Value) != `"theirs"` {
			t.Errorf("the row changed since marked: %+v %v %v; want it kept", e, found, err)
		}
		for _, i := range []int{0, 1, 3, 5} {
			if _, found, _ := s.Get(storetest.Ctx(t), bulkKey(i)); found {
				t.Errorf("row %d not deleted", i)
			}
		}
	})
}

// TestPlanBulkSplits: units are cut at BulkCommitRows mutations (a unit
// never split) and at BulkCommitBytes, and the plan says why.
func TestPlanBulkSplits(t *testing.T) {
	var units []store.BulkUnit
	for i := range 1001 {
		units = append(units, store.DeleteUnit(bulkKey(i), codec.FormatStamp(1)))
	}
	p := store.PlanBulk(units, store.BulkLimits{})
	if len(p.Commits) != 3 || len(p.Commits[0]) != 500 || len(p.Commits[2]) != 1 || !strings.Contains(p.Why, "500 writes") {
		t.Fatalf("1001 deletes: %d commits (%q)", len(p.Commits), p.Why)
	}
	if p := store.PlanBulk(units[:500], store.BulkLimits{}); len(p.Commits) != 1 || p.Why != "" {
		t.Fatalf("500 deletes: %d commits (%q)", len(p.Commits), p.Why)
	}
	big := []byte(`"` + strings.Repeat("x", 400<<10) + `"`)
	var sets []store.BulkUnit
	for i := range 5 {
		sets = append(sets, store.BulkUnit{Key: bulkKey(i), Muts: []store.Mutation{{Type: store.MutationSet, Key: bulkKey(i), Value: big}}})
	}
	if p := store.PlanBulk(sets, store.BulkLimits{}); len(p.Commits) != 3 || !strings.Contains(p.Why, "KiB") {
		t.Fatalf("5 sets of 400 KiB: %d commits (%q)", len(p.Commits), p.Why)
	}
	retry := store.BulkUnit{Key: bulkKey(0), Muts: make([]store.Mutation, 2)}
	var pairs []store.BulkUnit
	for range 251 {
		pairs = append(pairs, retry)
	}
	if p := store.PlanBulk(pairs, store.BulkLimits{}); len(p.Commits) != 2 || len(p.Commits[0]) != 250 {
		t.Fatalf("251 two-write units: %d commits, the first of %d", len(p.Commits), len(p.Commits[0]))
	}
}

// TestBulkDeleteBudget: a 1,000-row bulk delete over sqld behind the
// latency proxy (50 ms a request) is one request per commit (2 commits),
// against one request per row for a loop of plain deletes (kvdeck delete
// run per key). The times are logged as a ratio measured in the same run,
// not asserted.
func TestBulkDeleteBudget(t *testing.T) {
	srv := sqldtest.Start(t)
	storetest.Open(t, srv.URL, store.Options{})
	proxy := sqldtest.StartProxy(t, srv.URL, 50*time.Millisecond)
	s := storetest.Open(t, proxy.URL, store.Options{})
	stamp := seedBulk(t, s, 1000)
	var units []store.BulkUnit
	for i := range 1000 {
		units = append(units, store.DeleteUnit(bulkKey(i), stamp))
	}
	plan := store.PlanBulk(units, store.BulkLimits{})
	start := time.Now()
	n := proxy.Count(func() {
		for _, c := range plan.Commits {
			out, err := s.CommitBulk(storetest.Ctx(t), c)
			if err != nil || out.Applied != len(c) {
				t.Fatalf("commit: %+v %v", out, err)
			}
		}
	})
	bulk := time.Since(start)
	if len(plan.Commits) != 2 || n > int64(len(plan.Commits)) {
		t.Fatalf("1,000-row bulk delete: %d commits, %d requests; want 2 commits, one request each", len(plan.Commits), n)
	}
	const loopRows = 40 // the baseline's rate, measured on fewer rows
	seedBulk(t, s, loopRows)
	start = time.Now()
	m := proxy.Count(func() {
		for i := range loopRows {
			if err := s.Delete(storetest.Ctx(t), bulkKey(i)); err != nil {
				t.Fatal(err)
			}
		}
	})
	loop := time.Since(start)
	perRow := loop / loopRows
	t.Logf("1,000 rows: bulk %d requests in %v; delete loop %d requests for %d rows (%v a row, %v for 1,000): bulk %.0fx faster",
		n, bulk.Round(time.Millisecond), m, loopRows, perRow.Round(time.Millisecond), (perRow * 1000).Round(time.Second), float64(perRow*1000)/float64(bulk))
}
