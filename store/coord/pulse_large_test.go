//go:build largedata

package coord_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// millionRows seeds a rollback-journal store of a million rows at path:
// 949,989 under ["bulk", i], live, then 50,011 under ["t1", i] expired
// at T0 (written together: one run of rowids), every 7th of them with a
// value that is no JSON.
func millionRows(t testing.TB, path string) {
	t.Helper()
	storetest.SeedRollbackJournal(t, path, 949_989)
	storetest.Exec(t, "file:"+path, fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 50011) `+
		`INSERT INTO kv SELECT CAST(x'0274310004' || unhex(printf('8%%015x', i)) AS BLOB), CASE WHEN i %% 7 = 0 THEN 'not json' ELSE '{"job":' || i || '}' END, 949989 + i, %d FROM c`, storetest.T0))
}

// TestPulseEstimateLarge: on a million rows the pulse's store-wide
// figures are estimates, said so, and close: the rows, the 50,011
// expired rows (one run of rowids, as rows expired together are) and the
// 7,144 invalid values within a few percent (rarer rows, fewer in the
// sample, less closely: their text says so with fewer digits). Before, EXPIRED counted
// over the first 100,000 rows showed a bound far below (≥11 for 50,011).
func TestPulseEstimateLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	millionRows(t, path)
	s := storetest.Open(t, "file:"+path, store.Options{ReadOnly: true, Unchecked: true})
	p, err := coord.ReadPulse(storetest.Ctx(t), s, storetest.T0+1)
	must(t, err)
	t.Logf("pulse over 1,000,000 rows: rows ~%d, expired ~%d, invalid JSON ~%d (sampled %d)", p.Rows, p.Expired, p.InvalidJSON, p.Sampled)
	if !p.Estimated || p.Sampled > coord.PulseWindows*coord.PulseWindowRows {
		t.Errorf("estimated %v over %d rows: want an estimate over at most %d", p.Estimated, p.Sampled, coord.PulseWindows*coord.PulseWindowRows)
	}
	for _, c := range []struct {
		what      string
		got, want int64
		within    float64
	}{{"rows", p.Rows, 1_000_000, 0.02}, {"expired", p.Expired, 50_011, 0.1}, {"invalid JSON", p.InvalidJSON, 7_144, 0.25}} {
		if off := math.Abs(float64(c.got-c.want)) / float64(c.want); off > c.within {
			t.Errorf("%s: ~%d, want %d within %.0f%%", c.what, c.got, c.want, 100*c.within)
		}
	}
}

// BenchmarkPulseLarge: what a refresh of a million-row store costs, the
// pulse beside a plain count of its rows (the least a store-wide figure
// read exactly costs, and what the Fleet's EXPIRED would cost, a filter
// more) on the same file: go test -tags largedata -run '^$' -bench
// PulseLarge -benchtime 20x ./store/coord.
func BenchmarkPulseLarge(b *testing.B) {
	path := filepath.Join(b.TempDir(), "m.db")
	millionRows(b, path)
	ctx := context.Background()
	s := storetest.Open(b, "file:"+path, store.Options{ReadOnly: true, Unchecked: true})
	raw := storetest.RawDB(b, "file:"+path)
	b.Run("pulse", func(b *testing.B) {
		for range b.N {
			if _, err := coord.ReadPulse(ctx, s, storetest.T0+1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("count", func(b *testing.B) {
		for range b.N {
			var n int64
			if err := raw.QueryRowContext(ctx, "SELECT count(*) FROM kv").Scan(&n); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("first100k", func(b *testing.B) { // the pulse before: its bounded count
		for range b.N {
			var n, e, j sql.NullInt64
			if err := raw.QueryRowContext(ctx, "SELECT count(*), count(*) FILTER (WHERE expires_at <= ?), count(*) FILTER (WHERE NOT json_valid(v)) FROM (SELECT expires_at, v FROM kv LIMIT 100000)",
				storetest.T0+1).Scan(&n, &e, &j); err != nil {
				b.Fatal(err)
			}
		}
	})
}
