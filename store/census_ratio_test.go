package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// seedCensusShape writes, with a few statements generated on the server,
// a store shaped like n·4/7 rows under ["bench"] (bigint
// ids), n·2/7 under 500 prefixes ["tenant-NNN", "user-NNNNNN"], n/7
// expired rows under ["session", "s-NNNNNN"].
func seedCensusShape(t testing.TB, url string, n int, now int64) {
	t.Helper()
	storetest.Open(t, url, store.Options{Create: true}).Close() // the schema
	db := storetest.RawDB(t, url)
	ctx := storetest.CtxTimeout(t, 20*time.Minute)
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
		INSERT INTO kv SELECT unhex('0262656E63680004' || printf('80%014X', i)), '{"n":' || i || ',"name":"item-' || i || '","tags":["a","b"]}', 1, NULL FROM n`, []any{n * 4 / 7}},
		{`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
		INSERT INTO kv SELECT unhex('02' || hex(printf('tenant-%03d', i % 500)) || '0002' || hex(printf('user-%06d', i)) || '00'), '{"id":' || i || ',"plan":"pro"}', 2, NULL FROM n`, []any{n * 2 / 7}},
		{`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
		INSERT INTO kv SELECT unhex('0273657373696F6E0002' || hex(printf('s-%06d', i)) || '00'), '{"user":1}', 3, ? - 1000 - i FROM n`, []any{n / 7, now}},
	} {
		if _, err := db.ExecContext(ctx, q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
}

// plainAggregate is the baseline of the census's ratio: one full-table
// aggregate computing the row count, the total bytes and the expired
// count.
func plainAggregate(ctx context.Context, db *sql.DB, now int64) (rows, expired int64, err error) {
	var n, bytes, dead sql.NullInt64
	err = db.QueryRowContext(ctx, "SELECT count(*), sum(length(k) + length(CAST(v AS BLOB))), count(*) FILTER (WHERE expires_at <= ?) FROM kv", now).
		Scan(&n, &bytes, &dead)
	return n.Int64, dead.Int64, err
}

// censusRatio times work beside the plain aggregate on the same store, in
// rounds that alternate the two (so that neither always meets the busier
// moment), and returns the ratio of their fastest rounds (each side's
// round least slowed by other work on the machine) and those rounds'
// times.
func censusRatio(t testing.TB, db *sql.DB, now int64, rounds int, w censusJob) (ratio float64, plain, took time.Duration) {
	t.Helper()
	ctx := storetest.CtxTimeout(t, 30*time.Minute)
	for r := 0; r < rounds; r++ {
		start := time.Now()
		want, expired, err := plainAggregate(ctx, db, now)
		if err != nil {
			t.Fatal(err)
		}
		plain = fastest(plain, time.Since(start))
		if w.expired {
			want = expired
		}
		if w.count != 0 {
			want = w.count
		}
		start = time.Now()
		got, err := w.run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		took = fastest(took, time.Since(start))
		if got != want {
			t.Fatalf("counted %d rows, the plain aggregate %d", got, want)
		}
	}
	return float64(took) / float64(plain), plain, took
}

// fastest is the shorter of a round's time d and best, the fastest so
// far (zero: none yet).
func fastest(best, d time.Duration) time.Duration {
	if best == 0 || d < best {
		return d
	}
	return best
}

// BenchmarkCensusRatio reports each whole-store count (the census, the
// sweep's dry run) as a ratio of one plain full-table aggregate on the
// same store, measured in the same run, on a file and on sqld:
//
//	go test -run '^$' -bench CensusRatio -benchtime 3x ./store/
//
// "file-journal" is the file switched to the reference's rollback journal,
// where the census reads without locks (lockfree.go).
func BenchmarkCensusRatio(b *testing.B) {
	benchCensusRatio(b, 70_000, storetest.File(), storetest.File().Named("file-journal"), storetest.SQLD())
}

// benchCensusRatio runs every censusWork job beside the plain aggregate on
// a store of n rows shaped by seedCensusShape, on each backend (a file
// named "file-journal" in rollback-journal mode).
func benchCensusRatio(b *testing.B, n int, backends ...storetest.Backend) {
	b.Helper()
	for _, be := range backends {
		b.Run(be.Name, func(b *testing.B) {
			url := be.URL(b)
			now := storetest.T0
			if be.Name == "file-journal" { // the file first, in the reference's mode (kvdeck creates WAL)
				storetest.Exec(b, url, "PRAGMA journal_mode = DELETE",
					"CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, ver INTEGER NOT NULL, expires_at INTEGER)")
			}
			seedCensusShape(b, url, n, now)
			s := storetest.Open(b, url, store.Options{Clock: storetest.NewClock(now).Now})
			if st, err := s.Stats(context.Background(), now); err != nil || be.Name == "file-journal" && st.JournalMode != "delete" {
				b.Fatalf("journal mode %q, %v", st.JournalMode, err)
			}
			db := storetest.RawDB(b, url)
			for _, w := range censusWork(s, now) {
				b.Run(w.name, func(b *testing.B) {
					ratio, plain, took := censusRatio(b, db, now, b.N, w)
					b.ReportMetric(ratio, "x-plain")
					b.ReportMetric(float64(plain.Milliseconds()), "plain-ms")
					b.ReportMetric(float64(took.Milliseconds()), "ms")
				})
			}
		})
	}
}

// censusJob is one count: run returns the rows it counted, or with
// expired the expired rows, or count when it is not zero.
type censusJob struct {
	name    string
	run     func(ctx context.Context) (int64, error)
	expired bool
	count   int64
}

// censusWork is every whole-store count the ratio covers: stats (seq,
// the census), the Sweep tab's census (its 30 slices of the next hour),
// doctor's census (its counts; then with the row checks), sweep
// --dry-run's count alone and with its listing, and the Sweep tab's
// preview (the first 200 expired rows).
func censusWork(s *store.Store, now int64) []censusJob {
	census := func(opts store.CensusOptions) func(ctx context.Context) (int64, error) {
		return func(ctx context.Context) (int64, error) { st, err := s.Census(ctx, opts); return st.Rows, err }
	}
	hour := time.Hour.Milliseconds()
	return []censusJob{
		{name: "stats", run: func(ctx context.Context) (int64, error) { st, err := s.Stats(ctx, now); return st.Rows, err }},
		{name: "sweep-census", run: census(store.CensusOptions{Now: now, Soon: now + hour, Expiring: store.ExpiringOptions{Span: hour, Buckets: 30}, Expiries: true})},
		{name: "doctor-census", run: census(store.CensusOptions{Now: now, OldestKey: true})},
		{name: "doctor-checks", run: census(store.CensusOptions{Now: now, OldestKey: true, Check: true})},
		{name: "sweep-count", expired: true, run: func(ctx context.Context) (int64, error) {
			res, err := s.Sweep(ctx, store.SweepOptions{Now: now, DryRun: true})
			return res.Swept, err
		}},
		// `sweep --dry-run` as the CLI makes it: every row that would go
		// (handed over, not printed), and the receipt.
		{name: "sweep-dry-run", expired: true, run: func(ctx context.Context) (int64, error) {
			var n int64
			res, err := s.Sweep(ctx, store.SweepOptions{Now: now, DryRun: true, Each: func(store.Entry) error { n++; return nil }})
			if err == nil && n != res.Swept {
				err = fmt.Errorf("listed %d rows, counted %d", n, res.Swept)
			}
			return n, err
		}},
		// The Sweep tab's preview: the first 200 expired rows.
		{name: "sweep-preview", count: 200, run: func(ctx context.Context) (int64, error) {
			var n int64
			err := s.ScanExpired(ctx, nil, now, 200, func(store.Entry) error { n++; return nil })
			return n, err
		}},
	}
}
