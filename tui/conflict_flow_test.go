package tui

import (
	"fmt"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/journal"
	"kvdeck/internal/storetest"
	"kvdeck/views/viewtest"
)

// conflictOnHooli edits ["accounts", "hooli"] in Browse (e) while another
// writer sets it (through the test's handle on the store), and saves: the
// conflict screen shows.
func conflictOnHooli(t *testing.T, a *app) {
	t.Helper()
	editHooli(t, a, `{"by":"mine"}`)
	if _, err := a.s.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "hooli"]`), []byte(`{"by":"theirs"}`), nil); err != nil {
		t.Fatal(err)
	}
	a.keys("ctrl+s")
	a.waitFor("CONFLICT", "theirs → yours", `"theirs" → "mine"`)
}

// TestEditConflictFlow: issue 23 point 1, in the whole TUI over a
// journaled store: the conflict screen, ctrl+s asks (the root's dialog),
// y saves yours over their stamp, and the journal holds the write under
// its own op, applied, so z can undo it.
func TestEditConflictFlow(t *testing.T) {
	a, _ := journaled(t)
	conflictOnHooli(t, a)
	a.keys("ctrl+s")
	a.waitFor("Save yours over their change?", "only if it is still at their stamp")
	a.keys("y")
	a.waitFor(`saved ["accounts", "hooli"] over their stamp`)
	m := a.final()
	if got := a.value(`["accounts", "hooli"]`); got != `{"by":"mine"}` {
		t.Errorf("the key holds %s, want yours", got)
	}
	es, _, err := journal.Of(a.s).List()
	if err != nil || len(es) == 0 {
		t.Fatalf("journal: %v, %d entries", err, len(es))
	}
	if e := es[len(es)-1]; e.Op != "browse: save over their stamp" || e.Outcome != "applied" || len(e.Checks) != 1 || e.Checks[0].Versionstamp == "" {
		t.Errorf("the last journal entry is %q %v, checks %+v; want the overwrite, applied, checked against their stamp", e.Op, e.Outcome, e.Checks)
	}
	if m.tabs.browse.Capturing() {
		t.Error("the conflict or the form is still open after the save")
	}
}

// TestEditConflictGolden: the conflict screen in the TUI at 120x40,
// 80x24 and 60x18.
func TestEditConflictGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}, {60, 18}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			a := reference(t, false, sz.w, sz.h)
			conflictOnHooli(t, a)
			golden.RequireEqual(t, a.final().View())
		})
	}
}

// TestChangedSinceYouLookedFlow: issue 23 point 1 in the whole TUI: a
// row left and changed by another writer says so when the cursor comes
// back, and = shows the change path by path.
func TestChangedSinceYouLookedFlow(t *testing.T) {
	a := reference(t, false, 120, 40)
	a.command(`goto ["accounts", "acme"]`)
	a.waitFor("026163636f756e7473000261636d6500")
	a.keys("j")
	a.waitFor(`key     ["accounts", "café"]`)
	if _, err := a.s.Set(viewtest.Ctx, storetest.Key(t, `["accounts", "acme"]`), []byte(`{"plan":"gold"}`), nil); err != nil {
		t.Fatal(err)
	}
	a.keys("k")
	a.waitFor("since you looked", "= shows what changed")
	a.keys("=")
	a.waitFor("CHANGED SINCE YOU LOOKED", `"enterprise" → "gold"`, "- .seats")
	a.final()
}
