package coordkit_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the coordination kit serves the tabs and knows none of
// them, nor the root.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/views/coordkit", deptest.Plus([]string{"kvdeck/views/viewtest"}, deptest.Root, deptest.Tabs)...)
}
