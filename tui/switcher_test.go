package tui

import (
	"context"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

// TestStoreSwitchLaterWins: of two switches asked for in a row, the one
// asked last is shown; the first, answering late, is closed unseen and
// does not clear "connecting to …".
func TestStoreSwitchLaterWins(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, true)
	cfg := Config{Clock: clock, OpenStore: func(context.Context, string) (*store.Store, tuiconfig.SavedStore, error) {
		return nil, tuiconfig.SavedStore{}, nil
	}}
	m := newModel(s, cfg, themes.NewStyles(themes.Dark()), func(string) error { return nil })
	first, _ := m.switchStore("one")
	second, _ := first.switchStore("two")
	second.setSize(120, 30)
	if v := second.View(); !strings.Contains(v, "connecting to two…") {
		t.Errorf("while the switch runs, the screen does not say connecting to two…:\n%s", v)
	}
	late := viewtest.Open(t, "file:"+t.TempDir()+"/late.db", clock, false)
	next, cmd := second.Update(storeSwitched{gen: first.sw.gen, name: "one", entry: tuiconfig.SavedStore{Name: "one"}, s: late})
	nm := next.(model)
	if nm.store != s || nm.sw.current.Name == "one" || nm.sw.connecting != "two" {
		t.Fatalf("after the late answer: store replaced %v, current %q, connecting %q; want the old store, connecting to two",
			nm.store != s, nm.sw.current.Name, nm.sw.connecting)
	}
	if cmd == nil {
		t.Fatal("the late store is not closed")
	}
	cmd()
	if _, _, err := late.Get(storetest.Ctx(t), storetest.Key(t, `["k"]`)); err == nil {
		t.Error("the late store still answers: it was not closed")
	}
}

// TestStorePickerSanitises: a name or group written by hand in
// config.toml with terminal escapes reaches the screen inert.
func TestStorePickerSanitises(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, true)
	m := newModel(s, Config{Clock: clock}, themes.NewStyles(themes.Dark()), func(string) error { return nil })
	m.setSize(100, 30)
	m.sw.current = tuiconfig.SavedStore{Name: "evil\x1b]0;pwned\x07", Group: "g\x1b[2J"}
	m.overlays.put(&pickerState{stores: []tuiconfig.SavedStore{m.sw.current, {Name: "ok", URL: "file:/x\x1b[31m.db"}}})
	if v := m.View(); strings.Contains(v, "\x1b]") || strings.Contains(v, "\x07") || strings.Contains(v, "\x1b[2J") || strings.Contains(v, "\x1b[31m") {
		t.Errorf("the picker or the status bar draws an escape raw:\n%q", v)
	}
}

// TestStoreReadOnlyReason: z on a saved store opened read-only names the
// store and the setting, not --read-only alone (the TUI's text before).
func TestStoreReadOnlyReason(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, true)
	m := newModel(s, Config{Clock: clock, Current: tuiconfig.SavedStore{Name: "prod", ReadOnly: true}}, themes.NewStyles(themes.Dark()), func(string) error { return nil })
	if got := m.undoOff(); !strings.Contains(got, "store prod is read-only (saved so") {
		t.Errorf("undoOff = %q; want it to name the saved store", got)
	}
}

// TestStorePickerKeepsASwitchInFlight: opening the picker while a switch
// runs does not drop the switch's answer (one generation served both,
// and the answer was closed unseen with "connecting to …" left on).
func TestStorePickerKeepsASwitchInFlight(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, true)
	cfg := Config{Clock: clock,
		Stores: func() ([]tuiconfig.SavedStore, error) { return nil, nil },
		OpenStore: func(context.Context, string) (*store.Store, tuiconfig.SavedStore, error) {
			return nil, tuiconfig.SavedStore{}, nil
		}}
	m := newModel(s, cfg, themes.NewStyles(themes.Dark()), func(string) error { return nil })
	m.setSize(120, 30)
	switching, _ := m.switchStore("two")
	picking, _ := switching.openPicker()
	other := viewtest.Open(t, "file:"+t.TempDir()+"/two.db", clock, false)
	next, _ := picking.Update(storeSwitched{gen: switching.sw.gen, name: "two", entry: tuiconfig.SavedStore{Name: "two"}, s: other})
	if nm := next.(model); nm.store != other || nm.sw.connecting != "" {
		t.Errorf("the switch asked before the picker opened: shown %v, connecting %q; want it shown", nm.store == other, nm.sw.connecting)
	}
}
