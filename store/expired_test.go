package store_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// expiredRows writes, beside rows kvdeck sets, the rows other programs
// leave: a fractional REAL expiry on each side of T0, a TEXT expiry (no
// expiry to SQL's comparisons), a TEXT value that is not UTF-8, a BLOB
// value, a row whose k is NULL and one whose k is TEXT (both expired:
// no key range holds them, so no sweep reaches them).
func expiredRows(t *testing.T, url string, s *store.Store) {
	t.Helper()
	for i := range 12 {
		ttl := time.Duration(1000+i) * time.Millisecond
		if i%3 != 1 {
			ttl = -ttl // two rows in three expired
		}
		mustSet(t, s, fmt.Sprintf(`["a", %d]`, i), fmt.Sprint(i), dur(ttl))
	}
	mustSet(t, s, `["lease"]`, `{"holder":"r1"}`, dur(30*time.Minute))
	mustSet(t, s, `["later"]`, `3`, dur(2*time.Hour))
	mustSet(t, s, `["forever"]`, `4`, nil)
	storetest.Exec(t, url,
		fmt.Sprintf(`INSERT INTO kv VALUES (x'%s', '1', 20, %d.5)`, keyHex(t, `["real", "past"]`), storetest.T0-2),
		fmt.Sprintf(`INSERT INTO kv VALUES (x'%s', '1', 21, %d.5)`, keyHex(t, `["real", "soon"]`), storetest.T0),
		fmt.Sprintf(`INSERT INTO kv VALUES (x'%s', '1', 22, 'tomorrow')`, keyHex(t, `["text"]`)),
		fmt.Sprintf(`INSERT INTO kv VALUES (x'%s', CAST(x'22ff22' AS TEXT), 23, %d)`, keyHex(t, `["utf8"]`), storetest.T0-5),
		fmt.Sprintf(`INSERT INTO kv VALUES (x'%s', x'00ff', 24, %d)`, keyHex(t, `["blob"]`), storetest.T0-5),
		fmt.Sprintf(`INSERT INTO kv VALUES (NULL, '"n"', 25, %d)`, storetest.T0-5),
		fmt.Sprintf(`INSERT INTO kv VALUES ('typed', '"t"', 26, %d)`, storetest.T0-5),
		// Their stamps under seq, as a writer issues them (a sweep spares a
		// row stamped after its read: seq says which).
		`UPDATE kv_meta SET seq = 30 WHERE id = 0`,
	)
}

// sqlExpired is what SQL says a sweep at cut reaches: the keys of the
// rows whose k is a BLOB and expires_at <= cut, in key order.
func sqlExpired(t *testing.T, url string, cut int64) [][]byte {
	t.Helper()
	rows, err := storetest.RawDB(t, url).QueryContext(context.Background(),
		"SELECT k FROM kv WHERE typeof(k) = 'blob' AND expires_at <= ? ORDER BY k", cut)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var keys [][]byte
	for rows.Next() {
		var k []byte
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	return keys
}

// TestExpiredReadsMatchSQL: a dry run's listing and counts, the Sweep
// tab's preview (ScanExpired's first rows) and a sweep's deletes are what
// SQL's own comparisons say, with the odd rows of other programs, on
// every transport: in windows of the default size and of 3 rows (many
// windows, their ends inside the prefixes), a whole-store listing held
// and ordered at its end or, past its memory bound, walked again in key
// order, and under a clock an hour ahead of the real one (the guard).
func TestExpiredReadsMatchSQL(t *testing.T) {
	for _, c := range []struct {
		name           string
		window, sorted int
	}{{"default windows", 0, 0}, {"windows of 3 rows", 3, 0}, {"past the listing's bound", 3, 1}} {
		t.Run(c.name, func(t *testing.T) {
			storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
				url := b.URL(t)
				clock := storetest.NewClock(storetest.T0)
				s := storetest.Open(t, url, store.Options{Clock: clock.Now, Create: true})
				expiredRows(t, url, s)
				store.SetExpiredWindows(s, c.window, c.sorted)
				// The next expiry after T0: ["real", "soon"] at T0 + 0.5, read
				// as its ceiling (Entry.ExpiresAt), before ["a", 1] at T0 + 1001.
				expiredReadsMatchSQL(t, url, s, storetest.T0+1)
			})
		})
	}
}

// TestExpiredReadsWithoutRowid: on a kv made WITHOUT ROWID (not the
// reference's schema) the whole-store reads, which walk the table by
// rowid, walk it by key instead, with the same answers.
func TestExpiredReadsWithoutRowid(t *testing.T) {
	url := storetest.File().URL(t)
	storetest.Exec(t, url,
		`CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, ver INTEGER NOT NULL, expires_at INTEGER) WITHOUT ROWID`,
		`CREATE TABLE kv_meta (id INTEGER PRIMARY KEY CHECK (id = 0), seq INTEGER NOT NULL, ok INTEGER NOT NULL)`,
		`INSERT INTO kv_meta (id, seq, ok) VALUES (0, 0, 0)`)
	s := storetest.Open(t, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	for i := range 12 {
		mustSet(t, s, fmt.Sprintf(`["a", %d]`, i), `1`, dur(time.Duration(1-2*(i%2))*time.Second))
	}
	mustSet(t, s, `["lease"]`, `{"holder":"r1"}`, dur(30*time.Minute))
	store.SetExpiredWindows(s, 3, 0)
	expiredReadsMatchSQL(t, url, s, storetest.T0+1000)
}

// expiredReadsMatchSQL checks every expired read of s against sqlExpired,
// the real sweep last; next is the next expiry after T0.
func expiredReadsMatchSQL(t *testing.T, url string, s *store.Store, next int64) {
	t.Helper()
	ctx := storetest.Ctx(t)
	now, ahead := storetest.T0, storetest.T0+time.Hour.Milliseconds()
	want, wantAhead := sqlExpired(t, url, now), sqlExpired(t, url, ahead)
	var listed [][]byte
	res, err := s.Sweep(ctx, store.SweepOptions{Now: now, DryRun: true, Each: func(e store.Entry) error {
		listed = append(listed, e.Raw)
		return nil
	}})
	if err != nil || !sameKeys(listed, want) || res.Swept != int64(len(want)) || res.Remaining != res.Swept {
		t.Fatalf("dry run: %+v %v, listed %x; want %x", res, err, listed, want)
	}
	if res.NextExpiry == nil || *res.NextExpiry != next {
		t.Errorf("dry run: next expiry %v, want %d", res.NextExpiry, next)
	}
	count, err := s.Sweep(ctx, store.SweepOptions{Now: now, DryRun: true})
	if err != nil || count.Swept != res.Swept || count.LiveByReal != 0 || count.NextExpiry == nil || *count.NextExpiry != next {
		t.Errorf("dry run without a listing: %+v %v; with one %+v", count, err, res)
	}
	var first [][]byte
	err = s.ScanExpired(ctx, nil, now, 3, func(e store.Entry) error {
		first = append(first, e.Raw)
		return nil
	})
	if err != nil || !sameKeys(first, want[:3]) {
		t.Errorf("preview of 3: %x %v; want %x", first, err, want[:3])
	}
	// An hour ahead of the real clock: what the real clock sees expired is
	// listed, the rest counted as live by it.
	listed = nil
	guard, err := s.Sweep(ctx, store.SweepOptions{Now: ahead, RealNow: now, DryRun: true, Each: func(e store.Entry) error {
		listed = append(listed, e.Raw)
		return nil
	}})
	if err != nil || !sameKeys(listed, want) || guard.LiveByReal != int64(len(wantAhead)-len(want)) || guard.LiveByReal == 0 {
		t.Errorf("dry run an hour ahead: %+v %v, listed %x; want %x and %d live by the real clock", guard, err, listed, want, len(wantAhead)-len(want))
	}
	swept, err := s.Sweep(ctx, store.SweepOptions{Now: now})
	if err != nil || swept.Swept != int64(len(want)) || swept.Remaining != 0 {
		t.Errorf("sweep: %+v %v; want %d swept", swept, err, len(want))
	}
	if left := sqlExpired(t, url, now); len(left) != 0 {
		t.Errorf("after the sweep SQL still finds %x expired", left)
	}
}

// sameKeys reports whether a and b hold the same keys in the same order.
func sameKeys(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestRemoteCountTakesTheTail: over a server a count window takes the
// table's last rows when they are fewer than a quarter of a window (a
// store of a million rows and a few is counted in one request, not two);
// more than that is a window of its own, and a file's windows keep their
// size. The counts are SQL's either way.
func TestRemoteCountTakesTheTail(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now, Create: true})
		ctx := storetest.Ctx(t)
		rows := 0
		for _, c := range []struct {
			rows           int
			remote, onFile int64
		}{{1020, 1, 2}, {1300, 2, 2}} {
			storetest.Exec(t, url, fmt.Sprintf(`WITH RECURSIVE n(i) AS (SELECT %d UNION ALL SELECT i + 1 FROM n WHERE i + 1 < %d)
				INSERT INTO kv SELECT unhex('0262656E63680004' || printf('80%%014X', i)), '1', 1, CASE WHEN i %% 3 = 0 THEN %d END FROM n`, rows, c.rows, storetest.T0-1))
			rows = c.rows
			store.SetExpiredWindows(s, 1000, 0)
			before := s.Counters()
			res, err := s.Sweep(ctx, store.SweepOptions{Now: storetest.T0, DryRun: true})
			after := s.Counters()
			want := int64((c.rows + 2) / 3)
			if err != nil || res.Swept != want || int64(len(sqlExpired(t, url, storetest.T0))) != want {
				t.Fatalf("%d rows: counted %+v %v, want %d", c.rows, res, err, want)
			}
			reads, windows := after.RoundTrips-before.RoundTrips, c.remote
			if b.Name == "file" {
				reads, windows = after.Statements-before.Statements, c.onFile
			}
			if reads != windows {
				t.Errorf("%d rows in windows of 1000: %d reads, want %d", c.rows, reads, windows)
			}
		}
	})
}
