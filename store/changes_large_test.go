//go:build largedata

package store_test

import (
	"fmt"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// benchRows opens a new store of be at T0 holding rows rows under
// ["bench", <8 random bytes>], row i (from 1) at stamp i with the value
// and expires_at of the SQL expressions value and expires (over i), and
// seq = rows. It returns the store's URL and the store.
func benchRows(b *testing.B, be storetest.Backend, rows int, value, expires string) (string, *store.Store) {
	b.Helper()
	url := be.URL(b)
	s := storetest.Open(b, url, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	storetest.Exec(b, url,
		fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d) `+
			`INSERT INTO kv SELECT CAST(x'0262656e63680004' || randomblob(8) AS BLOB), %s, i, %s FROM c`, rows, value, expires),
		fmt.Sprintf(`UPDATE kv_meta SET seq = %d`, rows))
	return url, s
}

// BenchmarkChangesLarge measures a refresh of the change feed on a store
// of a million rows, beside Version (what every refresh already pays) and
// a raw scan of the table for ver > After in one statement (the plain
// answer without windows or index), on a file and on sqld:
//
//	go test -tags largedata -run '^$' -bench ChangesLarge -benchtime 20x ./store
func BenchmarkChangesLarge(b *testing.B) {
	const rows = 1000000
	for _, be := range storetest.FileAndSQLD() {
		b.Run(be.Name, func(b *testing.B) {
			url, s := benchRows(b, be, rows, `'{"holder":"' || hex(randomblob(16)) || '"}'`, "NULL")
			ctx := storetest.Ctx(b)
			db := storetest.RawDB(b, url)
			var seq int64 = rows
			moved := func(b *testing.B) {
				b.Helper()
				b.StopTimer()
				var err error
				seq++
				if _, err = s.Set(ctx, storetest.Key(b, `["moved"]`), []byte(`1`), nil); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.Run("version", func(b *testing.B) {
				for b.Loop() {
					if _, err := s.Version(ctx); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("idle", func(b *testing.B) {
				for b.Loop() {
					if p, err := s.Changes(ctx, store.ChangesOptions{After: seq}); err != nil || len(p.Entries) != 0 {
						b.Fatal(p, err)
					}
				}
			})
			b.Run("moved", func(b *testing.B) {
				for b.Loop() {
					moved(b)
					if p, err := s.Changes(ctx, store.ChangesOptions{After: seq - 1}); err != nil || len(p.Entries) != 1 {
						b.Fatal(len(p.Entries), err)
					}
				}
			})
			b.Run("raw-scan", func(b *testing.B) {
				for b.Loop() {
					moved(b)
					var n int
					if err := db.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT k, v FROM kv WHERE ver > ? ORDER BY ver LIMIT 500)", seq-1).Scan(&n); err != nil || n != 1 {
						b.Fatal(n, err)
					}
				}
			})
			if _, err := s.AddVerIndex(ctx); err != nil {
				b.Fatal(err)
			}
			b.Run("indexed-moved", func(b *testing.B) {
				for b.Loop() {
					moved(b)
					if p, err := s.Changes(ctx, store.ChangesOptions{After: seq - 1}); err != nil || len(p.Entries) != 1 || !p.Indexed {
						b.Fatal(len(p.Entries), err)
					}
				}
			})
		})
	}
}
