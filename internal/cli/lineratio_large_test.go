//go:build largedata

package cli

import (
	"context"
	"database/sql"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/storetest"
)

// plainSelect is the floor of a scan's line formatting: the same rows
// and columns read by one plain SELECT through database/sql on the same
// driver, nothing formatted. It returns the rows read.
func plainSelect(ctx context.Context, db *sql.DB, where string, args ...any) (int, error) {
	rows, err := db.QueryContext(ctx, "SELECT k, v, ver, expires_at FROM kv"+where+" ORDER BY k", args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var k, v sql.RawBytes
		var ver int64
		var exp sql.NullInt64
		if err := rows.Scan(&k, &v, &ver, &exp); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// lineRatio times kvdeck (args, in-process, its output discarded) beside
// the plain SELECT of the same rows, alternating them for rounds, and
// returns the ratio of their best times.
func lineRatio(tb testing.TB, url string, rounds int, plain func(ctx context.Context) (int, error), args ...string) (ratio float64, best, floor time.Duration) {
	tb.Helper()
	ctx := storetest.CtxTimeout(tb, 20*time.Minute)
	full := append([]string{"--db", url, "--read-only", "--now", "1767312000000"}, args...)
	env := map[string]string{"XDG_STATE_HOME": tb.TempDir()}
	for r := 0; r < rounds; r++ {
		t0 := time.Now()
		if code := Main(ctx, full, strings.NewReader(""), io.Discard, io.Discard, env); code != 0 {
			tb.Fatalf("kvdeck %s: exit %d", strings.Join(args, " "), code)
		}
		if d := time.Since(t0); best == 0 || d < best {
			best = d
		}
		t0 = time.Now()
		if _, err := plain(ctx); err != nil {
			tb.Fatal(err)
		}
		if d := time.Since(t0); floor == 0 || d < floor {
			floor = d
		}
	}
	return float64(best) / float64(floor), best, floor
}

// BenchmarkLineRatioLarge: `dump` and `list -o json` on a file of the
// 350k-row store, each beside a plain SELECT of the same rows (goal:
// at most 3 times it), in the journal mode the store is made in (a
// rollback journal: a filtered listing reads in lock-free windows), then
// in WAL mode.
//
//	go test -tags largedata -run '^$' -bench LineRatioLarge -benchtime 3x ./internal/cli
func BenchmarkLineRatioLarge(b *testing.B) {
	url := "file:" + filepath.Join(b.TempDir(), "kv.db")
	seedShape(b, url, shape{bench: 200000, tenants: 500, users: 200, expired: 50000}, storetest.T0)
	db := storetest.RawDB(b, url)
	now := int64(1767312000000)
	cases := []struct {
		name  string
		args  []string
		where string
		arg   []any
	}{
		{"dump", []string{"dump"}, "", nil},
		{"list-json", []string{"list", "-o", "json"}, " WHERE expires_at IS NULL OR expires_at > ?", []any{now}},
	}
	for i, c := range append(cases, cases...) {
		if i == len(cases) {
			if _, err := db.Exec("PRAGMA journal_mode=WAL"); err != nil {
				b.Fatal(err)
			}
		}
		var mode string
		if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"-"+mode, func(b *testing.B) {
			plain := func(ctx context.Context) (int, error) { return plainSelect(ctx, db, c.where, c.arg...) }
			ratio, best, floor := lineRatio(b, url, b.N, plain, c.args...)
			b.ReportMetric(ratio, "x-plain")
			b.ReportMetric(float64(best.Milliseconds()), "ms")
			b.ReportMetric(float64(floor.Milliseconds()), "plain-ms")
		})
	}
}
