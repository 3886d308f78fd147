//go:build largedata

package store_test

import (
	"testing"
	"time"
)

// TestLinearizabilityLarge is the long run of the linearizability check, in
// the large-data run: the same 3 processes x 2 clients, 2500 ops each
// (15000 per transport; at most 60 s). The checker's search grows steeply
// with the number of concurrent clients and faster than linearly with the
// length (150000 ops were not checked in 3 minutes), hence the bounds.
func TestLinearizabilityLarge(t *testing.T) {
	runLinearizability(t, linConfig{procs: 3, clients: 2, ops: 2500, dur: time.Minute, checkTimeout: 3 * time.Minute})
}
