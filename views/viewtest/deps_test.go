package viewtest_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the test harness is generic over the tabs and
// imports none of them, nor the root.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/views/viewtest", deptest.Plus([]string{"kvdeck/views/coordkit", "kvdeck/views/widgets"}, deptest.Root, deptest.Tabs)...)
}
