package views_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: views is the bottom of the view tree: it imports
// none of its subpackages (they import it), nor the root.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/views", deptest.Plus([]string{"kvdeck/views/widgets", "kvdeck/views/coordkit", "kvdeck/views/viewtest"}, deptest.Root, deptest.Tabs)...)
}
