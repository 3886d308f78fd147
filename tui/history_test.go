package tui

import (
	"testing"

	"kvdeck/codec"
)

// TestHistoryStack: a jump pushes where the user was; back returns it and
// keeps here for forward; a new jump drops the forward places; the same
// place twice in a row is kept once; each side is bounded.
func TestHistoryStack(t *testing.T) {
	k := func(s string) codec.Key { return codec.Key{codec.String(s)} }
	a, b, c := place{tabBrowse, k("a")}, place{tabLeases, k("b")}, place{tabActivity, nil}
	var h history
	if _, ok := h.goBack(a); ok {
		t.Fatal("back on an empty stack went somewhere")
	}
	h.push(a)
	h.push(a)
	h.push(b)
	if len(h.back) != 2 {
		t.Fatalf("back holds %d places, want 2 (a twice in a row is kept once)", len(h.back))
	}
	p, ok := h.goBack(c) // at c, back to b
	if !ok || !p.equal(b) {
		t.Fatalf("back went to %+v, want b", p)
	}
	p, ok = h.goForward(b) // forward again to c
	if !ok || !p.equal(c) {
		t.Fatalf("forward went to %+v, want c", p)
	}
	h.goBack(c)
	h.push(b) // a new jump from b: forward is dropped
	if _, ok := h.goForward(a); ok {
		t.Error("forward survived a new jump")
	}
	if (place{tabBrowse, nil}).equal(place{tabBrowse, codec.Key{}}) {
		t.Error("a tab alone equals the tab at the empty key")
	}
	for i := range 3 * maxPlaces {
		h.push(place{tabBrowse, codec.Key{codec.Number(float64(i))}})
	}
	if len(h.back) != maxPlaces {
		t.Errorf("back holds %d places, want the bound %d", len(h.back), maxPlaces)
	}
}
