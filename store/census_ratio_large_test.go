//go:build largedata

package store_test

import (
	"testing"

	"kvdeck/internal/storetest"
)

// BenchmarkCensusRatioLarge is BenchmarkCensusRatio on a store of 1M rows
// shaped like issue 20's (4/7 under ["bench"], 2/7 under 500 prefixes,
// 1/7 expired), on a file (WAL, as kvdeck creates one), on a file in the
// reference's rollback-journal mode (lock-free windows) and on sqld:
// every whole-store count as a ratio of one plain full-table aggregate
// measured beside it, each count checked against that aggregate's, each
// side's fastest of b.N rounds. scripts/test runs its rollback-journal and
// sqld legs, 3 rounds, after the large-data stage, so the figures of
// every CI run are in its log:
//
//	go test -tags largedata -run '^$' -bench CensusRatioLarge -benchtime 3x ./store/
func BenchmarkCensusRatioLarge(b *testing.B) {
	benchCensusRatio(b, 1_000_000, storetest.File(), storetest.File().Named("file-journal"), storetest.SQLD())
}
