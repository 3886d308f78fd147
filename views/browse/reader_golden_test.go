package browse

import (
	"fmt"
	"kvdeck/views/viewtest"
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

// TestPipeOutputGolden draws a filter's output (|, a command that is not
// a pager) in the entry pane at the three screen sizes: its command, its
// exit status and its output and errors, over the tree; from the reader
// too at 60x18.
func TestPipeOutputGolden(t *testing.T) {
	for _, sc := range append([]viewtest.Screen{viewtest.Wide()}, viewtest.SmallScreens()...) {
		t.Run(sc.String(), func(t *testing.T) {
			w, ht := sc.Body()
			h := newHarness(t, false, w, ht)
			goTo(h, `["accounts", "acme"]`)
			h.Keys("|", "end", "ctrl+u")
			h.TypeText(`cat; echo "done on stderr" >&2; exit 3`)
			h.Keys("enter")
			h.RequireView("exit 3")
			golden.RequireEqual(t, h.M.View())
		})
	}
}
