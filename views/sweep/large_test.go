//go:build largedata

package sweep

import (
	"testing"

	"kvdeck/store"
)

// TestLargeSweepProgressAndCancel: the Sweep tab over 100 000 expired
// rows, in default batches, cancelled halfway. (How a sweep of a million
// rows affects a neighbouring writer is the store's:
// store.TestLargeSweepNeighbourLatency.)
func TestLargeSweepProgressAndCancel(t *testing.T) {
	sweepCancelHalfway(t, 100_000, store.DefaultSweepBatch)
}
