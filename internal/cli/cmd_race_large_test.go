//go:build largedata

package cli_test

import "testing"

// TestRaceOverWebSocketLarge is TestRaceOverWebSocketNeverWedges for ten
// rounds on one server: every outcome known, the counter exactly the
// successes, in every round. Without the write gate (store/wsbatch.go)
// the server stalled in 9 of 10 rounds (and the run took six times as
// long).
func TestRaceOverWebSocketLarge(t *testing.T) { raceOverWebSocket(t, 10) }
