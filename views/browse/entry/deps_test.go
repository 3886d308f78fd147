package entry_test

import (
	"testing"

	"kvdeck/internal/deptest"
)

// TestImportDirection: the entry Browse's parts share uses the store and
// the widgets; never a tab (Browse and its parts included), the test
// harness, the root nor the command line.
func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/views/browse/entry", deptest.Plus([]string{"kvdeck/views/viewtest", "kvdeck/views/coordkit"}, deptest.Root, deptest.Tabs)...)
}
