package tui

import (
	"strings"
	"testing"

	"kvdeck/codec"
)

// TestBackAfterBrowseMoves: Browse's far moves are
// places the back key returns to (views/browse/places.go): G and g push
// the key they left, → into a level and ← out of it too; j/k and → that
// only opens a level in place push nothing. [ returns to the last key
// left, tab and selection, and keeps here for ].
func TestBackAfterBrowseMoves(t *testing.T) {
	a := reference(t, false, 120, 40)
	a.keys("j", "j") // "dwk_alarm_by_id": browsing, not a place
	a.keys("G")      // "tmp", the last: dwk_alarm_by_id is a place
	a.keys("g")      // "accounts": tmp is
	a.keys("l")      // opens accounts in place: nothing
	a.waitFor(`"acme"`, `"café"`)
	a.keys("l") // into the level, on acme: accounts is a place
	a.keys("j") // café
	a.keys("h") // out to accounts: café is
	a.keys("[") // back to café
	m := a.final()
	var back, fwd []string
	for _, p := range m.hist.back {
		back = append(back, codec.Format(p.key))
	}
	for _, p := range m.hist.fwd {
		fwd = append(fwd, codec.Format(p.key))
	}
	want := `["dwk_alarm_by_id"] | ["tmp"] | ["accounts"]`
	if got := strings.Join(back, " | "); got != want {
		t.Errorf("back stack %s, want %s", got, want)
	}
	if got := strings.Join(fwd, " | "); got != `["accounts"]` {
		t.Errorf("forward %s, want accounts (where [ was pressed)", got)
	}
	if k, ok := m.tabs.browse.Selected(); m.tab != tabBrowse || !ok || codec.Format(k) != `["accounts", "café"]` {
		t.Errorf("after [ Browse is at %v, want café", k)
	}
}
