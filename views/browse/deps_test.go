package browse_test

import (
	"slices"
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: a tab uses views, the widgets, (the three
// coordination tabs) coordkit and (Browse) its own parts below
// views/browse; never another tab (tabs hand over through a message to
// the root), the test harness, the root nor the command line.
func TestImportDirection(t *testing.T) {
	others := slices.DeleteFunc(slices.Clone(deptest.Tabs), func(p string) bool { return p == "kvdeck/views/browse" })
	deptest.Forbid(t, "kvdeck/views/browse", deptest.Plus([]string{"kvdeck/views/viewtest"}, deptest.Root, others)...)
}
