package browse

import (
	"strings"
	"testing"
)

// TestReaderPagesAndSearchesTheValue: v gives the entry pane the keys to
// page through a long value (pgdn, space, pgup, g) and search in it (/,
// n, N); esc gives the keys back to the tree (issue 13: long values).
func TestReaderPagesAndSearchesTheValue(t *testing.T) {
	h := newHarness(t, false, 80, 18)
	goTo(h, `["accounts", "acme"]`)
	h.Keys("v")
	if !h.M.Capturing() || h.M.reader == nil {
		t.Fatal("v did not open the reader")
	}
	h.RequireView("VALUE 1-", "space page")
	h.Keys(" ")
	if h.M.entryOff == 0 {
		t.Fatalf("space did not page:\n%s", h.M.View())
	}
	h.Keys("g")
	if h.M.entryOff != 0 {
		t.Fatalf("g left the reader at line %d", h.M.entryOff+1)
	}
	h.Keys("/")
	h.TypeText("SSO")
	h.Keys("enter")
	first := h.M.reader.match
	if first < 0 || h.M.entryOff == 0 {
		t.Fatalf("the search for sso found line %d, shows from %d:\n%s", first, h.M.entryOff, h.M.View())
	}
	h.RequireView(`"SSO" line`)
	h.Keys("/", "ctrl+u")
	h.TypeText("e") // on many lines
	h.Keys("enter")
	first = h.M.reader.match
	h.Keys("n")
	if m := h.M.reader.match; m == first || m < 0 {
		t.Fatalf("n stayed on line %d", m)
	}
	h.Keys("N")
	if h.M.reader.match != first {
		t.Fatalf("N went to line %d, want %d", h.M.reader.match, first)
	}
	h.Keys("esc")
	if h.M.reader != nil || h.M.Capturing() {
		t.Fatal("esc did not close the reader")
	}
	if !strings.Contains(h.M.View(), "v read") {
		t.Fatalf("the long value does not offer the reader:\n%s", h.M.View())
	}
}
