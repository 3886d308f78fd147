//go:build largedata

package store_test

import (
	"testing"
	"time"
)

// TestLinearizabilityLarge is the long run of the linearizability check, in
// the large-data run: the same 3 processes x 2 clients for 15 s per
// transport (the checker's search grows steeply with the number of
// concurrent clients, so the long run adds length, not clients).
func TestLinearizabilityLarge(t *testing.T) {
	runLinearizability(t, linConfig{procs: 3, clients: 2, dur: 15 * time.Second, checkTimeout: 3 * time.Minute})
}
