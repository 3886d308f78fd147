package views_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: views is the bottom of the view tree: it imports
// none of its subpackages (they import it), nor the root.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/views",
		"kvdeck/tui",
		"kvdeck/internal/cli",
		"kvdeck/views/browse",
		"kvdeck/views/leases",
		"kvdeck/views/alarms",
		"kvdeck/views/queues",
		"kvdeck/views/compose",
		"kvdeck/views/race",
		"kvdeck/views/sweep",
		"kvdeck/views/widgets",
		"kvdeck/views/coordkit",
		"kvdeck/views/viewtest",
	)
}
