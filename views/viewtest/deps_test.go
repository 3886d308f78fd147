package viewtest_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the test harness is generic over the tabs and
// imports none of them, nor the root.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/views/viewtest",
		"kvdeck/tui",
		"kvdeck/internal/cli",
		"kvdeck/views/browse",
		"kvdeck/views/leases",
		"kvdeck/views/alarms",
		"kvdeck/views/queues",
		"kvdeck/views/compose",
		"kvdeck/views/race",
		"kvdeck/views/sweep",
		"kvdeck/views/coordkit",
		"kvdeck/views/widgets",
	)
}
