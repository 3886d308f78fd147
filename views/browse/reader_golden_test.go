package browse

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestReaderGolden draws the value reader at each screen size: the text (and L,
// strings' \n as lines), a search, and the JSON tree (T) folded and
// unfolded.
func TestReaderGolden(t *testing.T) {
	for _, sz := range screenSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			h := newHarness(t, false, sz.w, sz.h)
			goTo(h, `["accounts", "acme"]`)
			h.Keys("v")
			t.Run("text", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
			h.Keys("/")
			h.TypeText("e")
			h.Keys("enter", "n", "n")
			t.Run("search", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
			h.Keys("T")
			t.Run("tree", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
			h.Keys("G", "right", "right")
			t.Run("tree-open", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
		})
	}
}
