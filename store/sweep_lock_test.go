package store_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestSweepReadsBesideReferenceWriter: on a rollback-journal store of
// live rows and expired ones, a reference-shaped writer (no busy timeout)
// commits every 6 ms (100 ms under -race) while a sweep's reads run
// again and again: the dry run as `sweep --dry-run` makes it (every row
// that would go, then the receipt), the Sweep tab's preview (the first
// 200 expired rows) and a real sweep that finds nothing to delete (a
// sweeper's pass over a clean store: its reads alone). No commit may be
// lost, and each read is exact: the writer never touches the expired
// rows. The dry run and the preview read every row with SQLite's locks
// before (Dump, page after page) and lost commits (on a 350k-row store
// 421 of 621 and 210 of 604 in 20 s).
func TestSweepReadsBesideReferenceWriter(t *testing.T) {
	rows, expired, period := 20_000, 2_000, 6*time.Millisecond
	if raceOn {
		rows, expired, period = 2_000, 200, 100*time.Millisecond
	}
	now := storetest.T0
	for _, c := range []struct {
		name string
		// clean: no expired row is seeded.
		clean bool
		// run reads once and says what it found wrong ("" when right).
		run func(ctx context.Context, s *store.Store) (string, error)
	}{
		{"dry run", false, func(ctx context.Context, s *store.Store) (string, error) {
			var keys [][]byte
			res, err := s.Sweep(ctx, store.SweepOptions{Now: now, DryRun: true, Each: func(e store.Entry) error {
				keys = append(keys, e.Raw)
				return nil
			}})
			if res.Swept != int64(len(keys)) {
				return fmt.Sprintf("listed %d rows, the receipt says %d", len(keys), res.Swept), err
			}
			return expiredKeys(keys, expired), err
		}},
		{"preview", false, func(ctx context.Context, s *store.Store) (string, error) {
			var keys [][]byte
			err := s.ScanExpired(ctx, nil, now, 200, func(e store.Entry) error {
				keys = append(keys, e.Raw)
				return nil
			})
			return expiredKeys(keys, 200), err
		}},
		{"sweep finding nothing", true, func(ctx context.Context, s *store.Store) (string, error) {
			res, err := s.Sweep(ctx, store.SweepOptions{})
			if res.Swept != 0 || res.Remaining != 0 || res.NextExpiry != nil {
				return fmt.Sprintf("a sweep of a store without expired rows: %+v", res), err
			}
			return "", err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "kv.db")
			storetest.SeedRollbackJournal(t, path, rows)
			if !c.clean {
				seedExpiredRaw(t, path, rows, expired)
			}
			s := storetest.Open(t, path, store.Options{Clock: storetest.NewClock(now).Now})
			ctx := storetest.CtxTimeout(t, 5*time.Minute)
			readsBesideWriter(t, s, path, rows, period, c.name, func() error {
				wrong, err := c.run(ctx, s)
				if err == nil && wrong != "" {
					t.Fatal(wrong)
				}
				return err
			})
		})
	}
}

// expiredKeys says what is wrong with keys, read as the first n rows of
// seedExpiredRaw in key order ("" when nothing is).
func expiredKeys(keys [][]byte, n int) string {
	if len(keys) != n {
		return fmt.Sprintf("%d expired rows, want %d", len(keys), n)
	}
	for i, k := range keys {
		if want := tmpRaw(i + 1); !bytes.Equal(k, want) {
			return fmt.Sprintf("expired row %d is %x, want %x", i, k, want)
		}
	}
	return ""
}

// tmpRaw is the raw key of row i of seedExpiredRaw: ["tmp", i] with i a
// bigint.
func tmpRaw(i int) []byte {
	return append([]byte{0x02, 't', 'm', 'p', 0x00, 0x04, 0x80}, byte(i>>48), byte(i>>40), byte(i>>32), byte(i>>24), byte(i>>16), byte(i>>8), byte(i))
}

// seedExpiredRaw adds n rows under ["tmp", i] that expired long ago to the
// store at path (stamps after the seeded rows'), in one statement.
func seedExpiredRaw(t *testing.T, path string, seeded, n int) {
	t.Helper()
	db := storetest.RawDB(t, path)
	ctx := context.Background()
	for _, q := range []string{
		fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d) `+
			`INSERT INTO kv SELECT CAST(x'02746d700004' || unhex(printf('8%%015x', i)) AS BLOB), '{"tmp":' || i || '}', %d + i, 1 FROM c`, n, seeded),
		fmt.Sprintf(`UPDATE kv_meta SET seq = %d`, seeded+n),
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
