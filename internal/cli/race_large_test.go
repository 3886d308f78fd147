//go:build largedata

package cli_test

import "testing"

// TestRaceOverWebSocketLarge is TestRaceOverWebSocketNeverWedges for ten
// rounds on one server, of which at most 3 may meet a server stall:
// without the write gate (store/wsbatch.go) 9 did (and the run took six
// times as long), with it none.
func TestRaceOverWebSocketLarge(t *testing.T) { raceOverWebSocket(t, 10, 3) }
