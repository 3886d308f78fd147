package tui

import (
	"testing"
	"time"
)

// TestFinderBudget: over HTTP behind the latency proxy, a find over 3000
// keys from the finder is one request (one page sized in bytes).
func TestFinderBudget(t *testing.T) {
	s, p, clock := remoteReference(t, 2*time.Millisecond)
	seedBench(t, s)
	app := start(t, s, clock, 120, 40, time.Hour)
	n := requestsFor(p, func() { app.command("find billing"); app.waitFor("1 found in 3060 key(s)") })
	t.Logf("find over 3060 keys: %d request(s)", n)
	if n > 1 {
		t.Errorf("the find took %d requests, want 1", n)
	}
	app.final()
}
