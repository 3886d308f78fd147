package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

// TestTabTable walks the tab table: every tab has an entry whose every
// hook is set and reaches its own view (two tabs reaching one view was
// how a missing case fell back to Browse silently); every tab is reached
// by its number key and by tab / shift+tab, and the tab bar then names
// it; every coordination prefix selects on a tab that can select; a tab
// outside the table is no tab at all.
func TestTabTable(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, true)
	m := newModel(s, Config{Clock: clock}, themes.NewStyles(themes.Dark()), nil)
	m.setSize(120, 40)
	fields := map[tab]any{
		tabBrowse: &m.tabs.browse, tabLeases: &m.tabs.leases, tabAlarms: &m.tabs.alarms, tabQueues: &m.tabs.queues,
		tabCompose: &m.tabs.compose, tabRace: &m.tabs.race, tabSweep: &m.tabs.sweep, tabActivity: &m.tabs.activity,
	}
	titles := map[string]bool{}
	for tb := range numTabs {
		d := tabTable[tb]
		if d.title == "" || d.view == nil || d.init == nil || d.update == nil || d.refresh == nil || len(d.help) == 0 {
			t.Errorf("tab %d: incomplete entry %+v", tb, d)
			continue
		}
		if titles[d.title] {
			t.Errorf("tab %d: title %q twice", tb, d.title)
		}
		titles[d.title] = true
		if got, want := fmt.Sprintf("%p", m.tabs.view(tb)), fmt.Sprintf("%p", fields[tb]); got != want {
			t.Errorf("%s: the table reaches view %s, its field is %s", tb, got, want)
		}
		if len(d.records) > 0 && d.selectRecord == nil {
			t.Errorf("%s shows %v but cannot select one", tb, d.records)
		}
		for _, p := range d.records {
			if got, ok := recordTab(codec.Key{codec.String(p)}); !ok || got != tb {
				t.Errorf("%s: prefix %s goes to %v", tb, p, got)
			}
		}
	}
	// Reached by number, and by tab from the previous one.
	for tb := range numTabs {
		next, _ := m.Update(viewtest.Key(fmt.Sprint(int(tb) + 1)))
		m = next.(model)
		if m.tab != tb {
			t.Fatalf("key %d shows %s, not %s", tb+1, m.tab, tb)
		}
		if bar := ansi.Strip(m.tabBar()); !strings.Contains(bar, fmt.Sprintf("[%d %s]", tb+1, tb)) {
			t.Errorf("the tab bar on %s: %q", tb, bar)
		}
	}
	for want := range numTabs {
		next, _ := m.Update(viewtest.Key("tab"))
		m = next.(model)
		if m.tab != want {
			t.Fatalf("tab from the last tab on went to %s, want %s", m.tab, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a tab outside the table was shown as one (silent fallback)")
		}
	}()
	_ = m.tabs.view(numTabs)
}
