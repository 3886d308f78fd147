package tui

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

// TestFleetTabsGolden: kvdeck tui --fleet prod starts on Alarms in its
// fleet mode, the reference (a file at a fixed path) and a server that is
// down in group prod, a store of another group left out; at 120x40,
// 80x24 and 60x18.
func TestFleetTabsGolden(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}, {60, 18}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			clock := viewtest.FixedClock()
			ref := fixedReference(t)
			stores := []tuiconfig.SavedStore{
				{Name: "dead", Group: "prod", URL: viewtest.DeadURL},
				{Name: "elsewhere", Group: "dev", URL: ref},
				{Name: "ref", Group: "prod", URL: ref},
			}
			s := viewtest.Open(t, ref, clock, true)
			cfg := Config{Clock: clock, Refresh: time.Hour, FleetGroup: "prod", Current: stores[2],
				Stores: func() ([]tuiconfig.SavedStore, error) { return stores, nil },
				OpenStore: func(context.Context, string) (*store.Store, tuiconfig.SavedStore, error) {
					return nil, tuiconfig.SavedStore{}, fmt.Errorf("not in this test")
				},
				OpenProbe: func(ctx context.Context, name string) (*store.Store, error) {
					for _, st := range stores {
						if st.Name == name {
							return store.Open(ctx, st.URL, store.Options{ReadOnly: true, Unchecked: true, Clock: clock.Now})
						}
					}
					return nil, fmt.Errorf("no store %s", name)
				},
			}
			m := newModel(s, cfg, themes.NewStyles(themes.Dark()), func(string) error { return nil })
			a := &app{t: t, s: s, clock: clock, tm: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(size[0], size[1]))}
			a.waitFor("ALARMS", "fleet: group prod", "✗ unreachable", "1 down")
			golden.RequireEqual(t, a.final().View())
		})
	}
}

// TestFleetTabsFlow: a fleet of a file store (the TUI starts on it), a
// sqld store (the reference's rows each) and a dead URL, in group g.
// W on Alarms shows the rows of both stores and the dead one as a row;
// f is refused in the fleet mode with its reason; enter on the sqld row
// opens sqld in Alarms with that alarm selected; W there shows the fleet
// again, and enter on a row of the store shown leaves the fleet mode
// there, the row selected, without opening anything.
func TestFleetTabsFlow(t *testing.T) {
	srv := sqldtest.Start(t)
	storetest.CopyReferenceRows(t, srv.URL)
	dir := t.TempDir()
	file := storetest.CopyReference(t)
	conf := fmt.Sprintf("[stores.file]\nurl = %q\nread_only = false\ngroup = \"g\"\n[stores.sqld]\nurl = %q\nread_only = false\ngroup = \"g\"\n[stores.dead]\nurl = %q\ngroup = \"g\"\n",
		file, srv.URL, viewtest.DeadURL)
	clock := viewtest.FixedClock()
	saved := saveStores(t, dir, conf, nil, clock)
	a := runSaved(t, saved, "file", 120, 40, 300*time.Millisecond)
	a.waitFor("file (g)", "seq ")

	a.keys("3", "W")
	a.waitFor("ALARMS", "fleet: group g", "3 store(s) · 1 down · most overdue first", "sqld ", "✗ unreachable")
	a.keys("f")
	a.waitFor("fleet mode: fire due alarms (f) acts on one store")
	// The rows: file's and sqld's first alarm, tied, file first.
	a.keys("j", "enter")
	a.waitFor("switched to store sqld (g)", "CLASSES")
	a.keys("W")
	a.waitFor("3 store(s) · 1 down · most overdue first")
	a.keys("enter") // file's row: another store again
	a.waitFor("switched to store file (g)")
	a.keys("W")
	a.waitFor("3 store(s) · 1 down · most overdue first")
	a.keys("enter") // file's row, the store shown
	a.waitFor("CLASSES")

	final := a.final()
	t.Cleanup(func() { final.store.Close() })
	want := codec.Format(storetest.Key(t, `["dwk_alarm_due", "Cart", 1767311999500, "acf595e529879b45adcc5da2d4402629"]`))
	got, ok := final.tabs.alarms.Selected()
	if final.sw.current.Name != "file" || final.tab != tabAlarms || final.tabs.alarms.InFleet() || !ok || codec.Format(got) != want {
		t.Errorf("final: store %s, tab %s, fleet %v, selected %s (%v); want file's Alarms, this store, %s",
			final.sw.current.Name, final.tab, final.tabs.alarms.InFleet(), codec.Format(got), ok, want)
	}
}
