package leases

import (
	"testing"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/viewtest"
)

// TestSelectBeforeTheFirstLoad: a row selected before the tab's rows
// are read (a fleet row's enter opens its store, then selects) is the
// row selected once they come, not the first.
func TestSelectBeforeTheFirstLoad(t *testing.T) {
	s, clock, _ := viewtest.CoordAnomalies(t)
	k := coord.LeaseKey("Ticker", viewtest.IDTicker1)
	build := func(d views.Deps, st themes.Styles) Model {
		m := New(d, st)
		m.Select(k)
		return m
	}
	w, h := viewtest.Wide().W, viewtest.Wide().H
	hs := viewtest.Start[Model, *Model](t, s, clock, w, h, build)
	if r, ok := hs.M.selected(); !ok || !r.Key.Equal(k) {
		t.Fatalf("selected %s after the first load, want %s", codec.Format(r.Key), codec.Format(k))
	}
}
