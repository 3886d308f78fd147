package tui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

// answers runs cmd and the commands of the batches it answers, and
// returns their messages (for commands that answer at once: no ticks).
func answers(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, answers(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}

// TestTabNewsKeepsTheHints: a lease gone while Compose is shown is
// Leases' news: the flash line keeps Compose's hints, the message log
// has it (named after Leases), the Leases label is marked until Leases
// is shown (it replaced the hints of whatever tab was shown).
func TestTabNewsKeepsTheHints(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, false)
	ctx := context.Background()
	m := newModel(s, Config{Clock: clock}, themes.NewStyles(themes.Dark()), nil)
	m.setSize(120, 40)
	next, load := m.Update(viewtest.Key("2"))
	m = next.(model)
	for _, msg := range answers(load) {
		m = m.send(msg)
	}
	if !strings.Contains(ansi.Strip(m.View()), "0e580e53") {
		t.Fatalf("Leases did not load:\n%s", m.View())
	}
	m = m.send(viewtest.Key("5"))
	hints := ansi.Strip(m.messageLine())
	page, err := s.List(ctx, store.ListOptions{Prefix: codec.Key{codec.String("dwk_lease")}})
	if err != nil || len(page.Entries) == 0 {
		t.Fatalf("no lease to release: %v", err)
	}
	for _, e := range page.Entries {
		if _, err := s.DeleteRaw(ctx, e.Raw, e.Ver); err != nil {
			t.Fatal(err)
		}
	}
	// A reload of Leases answered while Compose is shown.
	for _, msg := range answers(m.tabs.refresh(tabLeases)) {
		next, out := m.Update(msg)
		m = next.(model)
		for _, a := range answers(out) {
			m = m.send(a)
		}
	}
	if line := ansi.Strip(m.messageLine()); line != hints || strings.Contains(line, "is gone") {
		t.Errorf("Leases' news took Compose's hint line:\n%q\nwas %q", line, hints)
	}
	if last := m.flash.log[len(m.flash.log)-1].msg.Text; !strings.HasPrefix(last, "Leases: ") || !strings.Contains(last, "is gone") {
		t.Errorf("the log's last message is %q, want Leases' news", last)
	}
	if bar := ansi.Strip(m.tabBar()); !strings.Contains(bar, "2 Leases•") || strings.Contains(bar, "Browse•") {
		t.Errorf("the tab bar does not mark Leases alone: %q", bar)
	}
	m = m.send(viewtest.Key("2"))
	if bar := ansi.Strip(m.tabBar()); strings.Contains(bar, "•") {
		t.Errorf("the mark stays once Leases is shown: %q", bar)
	}
}
