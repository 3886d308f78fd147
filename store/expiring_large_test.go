//go:build largedata

package store_test

import (
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// BenchmarkCensusExpiringLarge measures the Sweep tab's census of 200k
// rows (a third of them with a TTL in the next two hours) with and
// without the next-hour slices (30 sum columns), on a file and on sqld:
//
//	go test -tags largedata -run '^$' -bench CensusExpiringLarge -benchtime 5x ./store
//
// Measured (2 shared cores): file 2.23 s without, 2.94 s with (x1.32);
// sqld 1.49 s without, 1.82 s with (x1.22). The slices are 30 sums of
// two comparisons each per row; only the Sweep tab asks for them.
func BenchmarkCensusExpiringLarge(b *testing.B) {
	for _, be := range storetest.FileAndSQLD() {
		b.Run(be.Name, func(b *testing.B) {
			_, s := benchRows(b, be, 200000, `'{"n":1}'`, `CASE WHEN i % 3 = 0 THEN `+itoa(storetest.T0)+` + (i * 37) % 7200000 END`)
			ctx := storetest.CtxTimeout(b, 10*time.Minute)
			for _, v := range []struct {
				name string
				opts store.CensusOptions
			}{
				{"census", store.CensusOptions{Now: storetest.T0}},
				{"census+expiring", store.CensusOptions{Now: storetest.T0, Expiring: store.ExpiringOptions{Span: time.Hour.Milliseconds(), Buckets: 30}}},
			} {
				b.Run(v.name, func(b *testing.B) {
					for b.Loop() {
						if _, err := s.Census(ctx, v.opts); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

func itoa(n int64) string { return formatInt(n) }

func formatInt(n int64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}
