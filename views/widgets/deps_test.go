package widgets_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: widgets know no tab, nor the coordination kit or
// records (store/coord), nor the root.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/views/widgets",
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
		"kvdeck/store/coord",
		"kvdeck/views/viewtest",
	)
}
