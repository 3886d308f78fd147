package browse

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// TestReaderPagesAndSearchesTheValue: v gives the entry pane the keys to
// page through a long value (pgdn, space, pgup, g) and search in it (/,
// n, N); esc gives the keys back to the tree (long values).
func TestReaderPagesAndSearchesTheValue(t *testing.T) {
	h := newHarness(t, false, 80, 12)
	goTo(h, `["accounts", "acme"]`)
	h.Keys("v")
	if h.M.Capturing() || !h.M.Keeps(viewtest.Key("q")) || !h.M.reader.Reading() {
		t.Fatal("v did not open the reader (keeping q, the other global keys global)")
	}
	h.RequireView("VALUE 1-", "space page")
	h.Keys(" ")
	if h.M.reader.Offset() == 0 {
		t.Fatalf("space did not page:\n%s", h.M.View())
	}
	h.Keys("g")
	if h.M.reader.Offset() != 0 {
		t.Fatalf("g left the reader at row %d", h.M.reader.Offset()+1)
	}
	h.Keys("/")
	h.TypeText("SSO")
	h.Keys("enter")
	first := h.M.reader.Match()
	if first < 0 || h.M.reader.Offset() == 0 {
		t.Fatalf("the search for sso found match %d, shows from %d:\n%s", first, h.M.reader.Offset(), h.M.View())
	}
	h.RequireView(`"SSO" match 1 of 1`)
	h.Keys("/", "ctrl+u")
	h.TypeText("e") // on many lines
	h.Keys("enter")
	first = h.M.reader.Match()
	h.Keys("n")
	if m := h.M.reader.Match(); m == first || m < 0 {
		t.Fatalf("n stayed on match %d", m)
	}
	h.Keys("N")
	if h.M.reader.Match() != first {
		t.Fatalf("N went to match %d, want %d", h.M.reader.Match(), first)
	}
	h.Keys("esc")
	if h.M.reader.Reading() || h.M.Capturing() || h.M.Keeps(viewtest.Key("q")) {
		t.Fatal("esc did not close the reader")
	}
	if !strings.Contains(h.M.View(), "v read") {
		t.Fatalf("the long value does not offer the reader:\n%s", h.M.View())
	}
}

// setValue writes key = value in the harness's store.
func setValue(t *testing.T, h *viewtest.Harness[Model], k string, value []byte) {
	t.Helper()
	if _, err := h.S.Commit(viewtest.Ctx, nil, []store.Mutation{{Type: store.MutationSet, Key: storetest.Key(t, k), Value: value}}); err != nil {
		t.Fatal(err)
	}
}
