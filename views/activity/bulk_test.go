package activity

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/views/viewtest"
)

// TestActivityMarks: space marks the key of the selected change (✓, "N
// marked" in the title) and moves down (a key is marked once, whatever
// its row); B offers copy keys and a delete
// of the keys marked on a write, checked on that write's stamp (a key
// marked on its deletion has none); ctrl+a marks every key shown once.
func TestActivityMarks(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			s, clock, _ := viewtest.CoordStoreAt(t)
			h := newActivityHarness(t, s, clock, sz.w, sz.h-3)
			screenData(t, s)
			h.Refresh()
			if err := s.Delete(storetest.Ctx(t), viewtest.KeyOf("accounts", "acct-11")); err != nil {
				t.Fatal(err)
			}
			h.Refresh()
			h.Keys(" ", "j", " ") // acct-11 on its deletion, acct-10 on its write
			h.RequireView("2 marked", "✓")
			golden.RequireEqual(t, h.M.View())
			h.Keys(";")
			if len(h.Bulks) != 1 {
				t.Fatalf("B: %+v", h.Bulks)
			}
			var names []string
			for _, a := range h.Bulks[0].Actions {
				names = append(names, a.Key+" "+a.Name)
				for _, u := range a.Units {
					if u.Checks[0].Versionstamp == "" {
						t.Errorf("delete of %s unchecked", codec.Format(u.Key))
					}
				}
			}
			if got := strings.Join(names, ", "); got != "y copy keys, d delete 1 key(s) as written" {
				t.Errorf("actions: %s", got)
			}
			h.Keys("ctrl+a")
			if n := h.M.marks.Len(); n != 12 {
				t.Errorf("ctrl+a: %d keys marked, want the 12 shown", n)
			}
		})
	}
}
