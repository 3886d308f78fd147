package browse

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/views/viewtest"
	"kvdeck/views/widgets"
)

// TestReaderGolden draws the value reader at both sizes: the text (and L,
// strings' \n as lines), a search, and the JSON tree (T) folded and
// unfolded.
func TestReaderGolden(t *testing.T) {
	for _, sz := range sizes {
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

// TestReaderTree: T shows the value as a tree parsed in a command; enter,
// → and ← fold; esc goes back to the text; a value past the tree's
// bound says so and stays in the text.
func TestReaderTree(t *testing.T) {
	h := newHarness(t, false, 80, 18)
	setValue(t, h, `["big", "value"]`, []byte(`{"a":{"b":[1,2,3]},"c":"x"}`))
	goTo(h, `["big", "value"]`)
	h.Keys("v")
	m, parse := h.M.Update(viewtest.Key("T"))
	if parse == nil || !m.reader.tree.on || m.reader.tree.t != nil {
		t.Fatal("T parsed the value in Update")
	}
	h.M = m
	h.Settle(parse)
	h.RequireView("VALUE TREE 1/3 · 7 values", `▸ "a": {…} 1 key`)
	h.Keys("j", "enter", "right", "right")
	h.RequireView(`▾ "b": [ 3 items`, "[2] 3")
	h.Keys("left", "left")
	h.RequireView(`▸ "b": […] 3 items`)
	h.Keys("esc")
	if h.M.reader == nil || h.M.reader.tree.on {
		t.Fatal("esc in the tree did not go back to the text")
	}
	h.RequireView("VALUE 1-")

	h.Keys("esc")
	setValue(t, h, `["big", "huge"]`, []byte(`"`+strings.Repeat("x", widgets.JSONTreeMaxBytes)+`"`))
	goTo(h, `["big", "huge"]`)
	h.Keys("v", "T")
	if h.M.reader.tree.on || !strings.Contains(h.M.reader.note, "too large for the tree") {
		t.Fatalf("T on 8 MiB: tree %v, note %q", h.M.reader.tree.on, h.M.reader.note)
	}
}
