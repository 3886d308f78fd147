package browse

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/codec"
)

// TestBrowseMarks: space marks the stored key under the cursor with the
// stamp it has (read when marked) and moves down; the tree shows ✓ and
// "N marked"; B asks for delete (checked on that stamp) and copy keys;
// ctrl+a marks every stored key shown, and again clears.
func TestBrowseMarks(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 37}, {80, 21}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h+3), func(t *testing.T) {
			h := newHarness(t, false, sz.w, sz.h)
			h.Keys("enter", "j", " ", " ")
			h.RequireView("2 marked", "✓")
			golden.RequireEqual(t, h.M.View())
		})
	}
	h := newHarness(t, false, 120, 37)
	h.Keys("enter", "j", " ", ";")
	if len(h.Bulks) != 1 || len(h.Bulks[0].Actions) != 2 {
		t.Fatalf("B: %+v", h.Bulks)
	}
	del := h.Bulks[0].Actions[0]
	mk := h.M.marks.List()[0]
	e, _, err := h.S.Get(t.Context(), mk.Key)
	if err != nil || del.Name != "delete" || len(del.Units) != 1 || del.Units[0].Checks[0].Versionstamp != e.Versionstamp() {
		t.Fatalf("delete of %s: %+v (stamp now %s, %v)", codec.Format(mk.Key), del, e.Versionstamp(), err)
	}
	h.Keys("ctrl+a")
	n := 0
	for _, r := range h.M.rows {
		if r.kind == rowNode && markable(r.n) {
			n++
		}
	}
	if h.M.marks.Len() != n || n < 2 {
		t.Fatalf("ctrl+a: %d marked of %d stored keys shown", h.M.marks.Len(), n)
	}
	h.Keys("ctrl+a")
	if h.M.marks.Len() != 0 {
		t.Fatalf("ctrl+a again: %d marked", h.M.marks.Len())
	}
}
