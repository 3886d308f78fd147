package widgets_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: widgets know no tab, nor the coordination kit or
// records (store/coord), nor the root.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/views/widgets", deptest.Plus([]string{"kvdeck/views/coordkit", "kvdeck/store/coord", "kvdeck/views/viewtest"}, deptest.Root, deptest.Tabs)...)
}
