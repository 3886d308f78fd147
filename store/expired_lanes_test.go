package store_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestListingLanesMatchOneReader: a dry run's listing of the whole store
// read on two lanes (expired_lanes.go) hands over the rows one reader
// hands over, in the same order, with the same totals, on a file in WAL
// and in rollback-journal mode (lock-free, both connections) and on a
// server (one reader there): beside rows other programs wrote (REAL
// expiries, TEXT stamps, the odd rows of expiredRows), rowids far apart
// (gaps of 50M, the last rowid SQLite has) in windows of 50 rows (a
// file's; a server's keep their size), and a
// writer committing throughout (rows that never expire, so that both
// listings must agree). The gaps cost the lanes no flood of empty
// windows: at most twice one reader's statements.
func TestListingLanesMatchOneReader(t *testing.T) {
	backends := []storetest.Backend{storetest.File(), storetest.File().Named("file-journal"), storetest.SQLD()}
	storetest.Each(t, backends, func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		if b.Name == "file-journal" {
			storetest.Exec(t, url, "PRAGMA journal_mode = DELETE",
				"CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, ver INTEGER NOT NULL, expires_at INTEGER)")
		}
		s := storetest.Open(t, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now, Create: true})
		expiredRows(t, url, s)
		seedSparse(t, url, 2000)
		if b.Name != "sqld" { // a server's windows: a request each
			store.SetExpiredWindows(s, 50, 0)
		}
		ctx := storetest.Ctx(t)
		want := sqlExpired(t, url, storetest.T0)
		one, oneTrips := dryRunListing(t, ctx, s, true)
		lanes, laneTrips := dryRunListing(t, ctx, s, false)
		if len(one.rows) != len(want) || one.text() != lanes.text() {
			t.Fatalf("%d rows listed by one reader (SQL: %d), %d on lanes; differ:\n%s", len(one.rows), len(want), len(lanes.rows), firstDiff(one.text(), lanes.text()))
		}
		if laneTrips > 2*oneTrips+8 {
			t.Errorf("the lanes made %d round trips, one reader %d", laneTrips, oneTrips)
		}
		if b.Name == "file-journal" && store.LaneReads(s, 1) == 0 {
			t.Errorf("the second lane read nothing")
		}
		commits, stop := writeBeside(t, url)
		for i := range 3 {
			one, _ := dryRunListing(t, ctx, s, true)
			lanes, _ := dryRunListing(t, ctx, s, false)
			if one.text() != lanes.text() {
				t.Fatalf("round %d beside a writer: one reader and the lanes differ:\n%s", i, firstDiff(one.text(), lanes.text()))
			}
		}
		if stop(); commits.Load() == 0 {
			t.Errorf("the writer committed nothing during the listings")
		}
	})
}

// listing is what a dry run with a listing handed over and counted.
type listing struct {
	rows []string
	res  store.SweepResult
}

// text is the listing in a line a row, then its totals.
func (l listing) text() string {
	next := "none"
	if l.res.NextExpiry != nil {
		next = fmt.Sprint(*l.res.NextExpiry)
	}
	return strings.Join(l.rows, "\n") + fmt.Sprintf("\nswept %d, remaining %d, live by real %d, next %s",
		l.res.Swept, l.res.Remaining, l.res.LiveByReal, next)
}

// dryRunListing is a dry run of s's whole store with a listing, as one
// reader (one) or on lanes, and the round trips it made.
func dryRunListing(t *testing.T, ctx context.Context, s *store.Store, one bool) (listing, int64) {
	t.Helper()
	store.SetOneLane(s, one)
	defer store.SetOneLane(s, false)
	var l listing
	trips := s.Counters().RoundTrips
	res, err := s.Sweep(ctx, store.SweepOptions{Now: storetest.T0, DryRun: true, Each: func(e store.Entry) error {
		exp := "none"
		if e.ExpiresAt != nil {
			exp = fmt.Sprint(*e.ExpiresAt)
		}
		l.rows = append(l.rows, fmt.Sprintf("%x %q ver %d exp %s %s", e.Raw, e.Value, e.Ver, exp, e.Malformed))
		return nil
	}})
	if err != nil {
		t.Fatalf("dry run (one reader %v): %v", one, err)
	}
	l.res = res
	l.res.Elapsed = 0
	return l, s.Counters().RoundTrips - trips
}

// firstDiff is the first line where a and b differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines and %d", len(al), len(bl))
}

// seedSparse writes n rows under ["bulk", id] as another program would,
// at rowids in runs of 100 with gaps of 200 between them and of 50M
// every 400 rows, their keys in
// another order than their rowids; two in three expired at T0 (one of
// those at a fractional REAL expiry), one in five stamped with TEXT; and
// one expired row at the last rowid SQLite has.
func seedSparse(t *testing.T, url string, n int) {
	t.Helper()
	t0 := storetest.T0
	storetest.Exec(t, url, fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < %d)
		INSERT INTO kv (rowid, k, v, ver, expires_at)
		SELECT 1000000 + i + (i / 400) * 50000000 + (i / 100) * 200,
			unhex('0262756C6B0004' || printf('80%%014X', (i * 7919) %% %d)),
			'{"n":' || i || '}',
			CASE WHEN i %% 5 = 0 THEN 'v-' || i ELSE 40 + i END,
			CASE i %% 3 WHEN 0 THEN %d - i WHEN 1 THEN %d - i + 0.25 ELSE %d + 100000 + i END
		FROM n`, n, n, t0, t0, t0),
		fmt.Sprintf(`INSERT INTO kv (rowid, k, v, ver, expires_at) VALUES (%d, x'%s', '"last"', 39, %d)`,
			int64(math.MaxInt64), keyHex(t, `["last"]`), t0-7))
}

// writeBeside starts a writer on the store at url that commits, until
// stop, a new row without expiry, an update of it and the delete of the
// one before, one statement at a time; commits counts its commits. A
// failed commit fails the test.
func writeBeside(t *testing.T, url string) (commits *atomic.Int64, stop func()) {
	t.Helper()
	db := storetest.RawDB(t, url)
	commits = new(atomic.Int64)
	done := make(chan struct{})
	var wg sync.WaitGroup
	var once sync.Once
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
			k := fmt.Sprintf("unhex('02777269746500' || '04' || printf('80%%014X', %d))", i)
			for _, q := range []string{
				"INSERT INTO kv VALUES (" + k + ", '1', 1, NULL)",
				"UPDATE kv SET v = '2' WHERE k = " + k,
				fmt.Sprintf("DELETE FROM kv WHERE k = unhex('02777269746500' || '04' || printf('80%%014X', %d))", i-1),
			} {
				if _, err := db.ExecContext(context.Background(), q); err != nil {
					t.Errorf("writer: %s: %v", q, err)
					return
				}
				commits.Add(1)
			}
		}
	})
	stop = func() { once.Do(func() { close(done); wg.Wait() }) }
	t.Cleanup(stop)
	return commits, stop
}
