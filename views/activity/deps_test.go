package activity_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: a tab uses views and the widgets; never another
// tab (tabs hand over through a message to the root), the test harness,
// the root nor the command line.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/views/activity", deptest.Plus([]string{"kvdeck/views/viewtest"}, deptest.Root, deptest.Tabs)...)
}
