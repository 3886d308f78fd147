package fleet_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the Fleet view uses views' widgets, coord (the
// pulse) and store; never another tab, the test harness, the root nor the
// command line.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/views/fleet", deptest.Plus([]string{"kvdeck/views/viewtest"}, deptest.Root, deptest.Tabs)...)
}
