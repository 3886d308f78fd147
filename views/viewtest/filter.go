package viewtest

import "slices"

// Filtering is a list tab with the / filter (widgets.Filter): while the
// filter input has the keys, the tab is Capturing.
type Filtering[V any] interface {
	Model[V]
	Capturing() bool
}

// typeFilter opens the tab's / filter, empties it and types text; it
// fails the test when / does not give the filter input the keys.
func typeFilter[V Filtering[V]](h *Harness[V], text string) {
	h.T.Helper()
	h.Keys("/")
	if !h.M.Capturing() {
		h.T.Fatalf("the filter input does not have the keys after /:\n%s", h.M.View())
	}
	h.ClearInput()
	h.TypeText(text)
}

// Filter types text into the tab's / filter (replacing what it held) and
// keeps it with enter, failing the test unless / gave the filter input
// the keys and enter took them back.
func Filter[V Filtering[V]](h *Harness[V], text string) {
	h.T.Helper()
	typeFilter(h, text)
	h.Keys("enter")
	if h.M.Capturing() {
		h.T.Fatalf("the filter input still has the keys after enter:\n%s", h.M.View())
	}
}

// CheckFilter checks a list tab's / filter on the rows that rows names
// (/ filters on every list tab): text typed and kept with enter
// (Filter) leaves exactly want, the view shows the filter and that esc
// clears it, and esc brings back the rows shown before.
func CheckFilter[V Filtering[V]](h *Harness[V], rows func(V) []string, text string, want ...string) {
	h.T.Helper()
	before := rows(h.M)
	Filter(h, text)
	if got := rows(h.M); !slices.Equal(got, want) {
		h.T.Fatalf("rows %q after /%s, want %q", got, text, want)
	}
	h.RequireView("/" + text + " (esc clears)")
	h.Keys("esc")
	if got := rows(h.M); !slices.Equal(got, before) {
		h.T.Fatalf("rows %q after esc, want the %d before the filter: %q", got, len(before), before)
	}
}

// CheckFilterMatchesNothing types text into the / filter and fails unless
// the tab then shows no row and says that nothing matches (a narrow pane
// wraps the text after it).
func CheckFilterMatchesNothing[V Filtering[V]](h *Harness[V], rows func(V) []string, text string) {
	h.T.Helper()
	typeFilter(h, text)
	h.RequireView("Nothing matches /")
	if got := rows(h.M); len(got) != 0 {
		h.T.Fatalf("rows %q match /%s", got, text)
	}
}
