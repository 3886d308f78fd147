//go:build largedata

package store_test

import (
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

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
			url := be.URL(b)
			c := storetest.NewClock(storetest.T0)
			s := storetest.Open(b, url, store.Options{Clock: c.Now})
			storetest.Exec(b, url,
				`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 1000000) `+
					`INSERT INTO kv SELECT CAST(x'0262656e63680004' || randomblob(8) AS BLOB), '{"holder":"' || hex(randomblob(16)) || '"}', i, NULL FROM c`,
				`UPDATE kv_meta SET seq = 1000000`)
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
