package browse

import (
	"testing"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// TestFarMovesArePlaces: what counts as a place (places.go). j/k and
// pgdn leave nothing; G leaves the key it was on; a filter accepted with
// enter that moved the cursor leaves the key it was on at /; enter on a
// value-search match leaves the key the search was opened from.
func TestFarMovesArePlaces(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	viewtest.Commit(t, s, func(a *store.Atomic) {
		for _, name := range []string{"apple", "banana", "cherry", "damson"} {
			a.Set(codec.Key{codec.String(name)}, []byte(`{"fruit":"`+name+`"}`))
		}
	})
	h := viewtest.Start[Model, *Model](t, s, clock, 120, 30, New)
	// far presses keys and checks what they left: the key selected
	// before them when place is set, else nothing.
	far := func(place bool, keys ...string) {
		t.Helper()
		before, _ := h.M.Selected()
		h.Keys(keys...)
		var got []string
		for _, k := range h.M.TakeLeft() {
			got = append(got, codec.Format(k))
		}
		want := []string{}
		if place {
			want = append(want, codec.Format(before))
		}
		if len(got) != len(want) || (len(got) == 1 && got[0] != want[0]) {
			t.Errorf("%v left %v, want %v", keys, got, want)
		}
	}
	far(false, "j", "pgdown", "k")
	far(true, "g")
	far(true, "G")
	far(false, "G") // already there
	h.Keys("g")
	h.M.TakeLeft()
	far(false, "/")
	h.TypeText("cher")
	h.Keys("enter") // the filter took the cursor to cherry: apple (at /) is left
	if left := h.M.TakeLeft(); len(left) != 1 || codec.Format(left[0]) != `["apple"]` {
		t.Errorf("the filter's enter left %v, want apple", left)
	}
	if k, _ := h.M.Selected(); codec.Format(k) != `["cherry"]` {
		t.Fatalf("the filter selected %v", k)
	}
	h.Keys("esc") // clear the filter: the cursor stays
	h.M.TakeLeft()
	h.Keys("s")
	h.TypeText("banana")
	h.Keys("tab")       // every key
	far(false, "enter") // the results
	far(true, "enter")  // the match: cherry is left
	if k, ok := h.M.Selected(); !ok || codec.Format(k) != `["banana"]` {
		t.Errorf("the search's enter selected %v", k)
	}
}
