package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

// TestStatusBarSaysThePast: a store opened --at shows the point in the
// status bar (short on a narrow screen) and the name of the store it is
// the past of, not the restore's temporary file; once another store is
// opened the marker goes.
func TestStatusBarSaysThePast(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, true)
	cfg := Config{Clock: clock, Past: "txid 42 · 2026-01-02T10:01:59Z", PastOf: "prod"}
	m := newModel(s, cfg, themes.NewStyles(themes.Dark()), nil)
	m.setSize(160, 40)
	bar := ansi.Strip(m.statusBar())
	if !strings.Contains(bar, " AS OF txid 42 · 2026-01-02T10:01:59Z ") || !strings.HasPrefix(bar, " prod │") {
		t.Fatalf("status bar: %q", bar)
	}
	m.setSize(90, 30)
	if bar := ansi.Strip(m.statusBar()); !strings.Contains(bar, " PAST ") {
		t.Fatalf("narrow status bar: %q", bar)
	}
	m.owned = true // :open or :store put another store in its place
	if bar := ansi.Strip(m.statusBar()); strings.Contains(bar, "PAST") || strings.Contains(bar, "prod") {
		t.Fatalf("after a switch: %q", bar)
	}
	live := newModel(s, Config{Clock: clock}, themes.NewStyles(themes.Dark()), nil)
	live.setSize(160, 40)
	if bar := ansi.Strip(live.statusBar()); strings.Contains(bar, "AS OF") {
		t.Fatalf("the live store: %q", bar)
	}
}
