package coordkit_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the coordination kit serves the tabs and knows none of
// them, nor the root.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/views/coordkit",
		"kvdeck/tui",
		"kvdeck/internal/cli",
		"kvdeck/views/browse",
		"kvdeck/views/leases",
		"kvdeck/views/alarms",
		"kvdeck/views/queues",
		"kvdeck/views/compose",
		"kvdeck/views/race",
		"kvdeck/views/sweep",
		"kvdeck/views/viewtest",
	)
}
