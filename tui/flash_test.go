package tui

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/viewtest"
)

// flashModel is the root over the reference store at w x h, driven by
// hand (no program: the messages are sent one by one).
func flashModel(t *testing.T, w, h int) model {
	t.Helper()
	s, clock, _ := viewtest.Reference(t, true)
	m := newModel(s, Config{Clock: clock}, themes.NewStyles(themes.Dark()), nil)
	m.setSize(w, h)
	return m
}

func (m model) send(msg any) model {
	next, _ := m.Update(msg)
	return next.(model)
}

// TestNewestMessageWins: a refresh error that comes after an action's
// flash takes the flash line (the older flash said all was well while
// the status bar said the store was gone).
func TestNewestMessageWins(t *testing.T) {
	m := flashModel(t, 120, 40)
	m = m.send(views.FlashMsg{Level: views.FlashOK, Text: "copied the key"})
	m = m.send(versionRead{session: m.session, err: errors.New("database unreachable: cannot reach the server")})
	if line := ansi.Strip(m.messageLine()); !strings.Contains(line, "refresh: database unreachable") || strings.Contains(line, "copied") {
		t.Errorf("the flash line after a newer error: %q", line)
	}
}

// TestFlashKeepsTheVerbAt60: at 60 columns a flash too long for the line
// shortens its key, not what it says of it.
func TestFlashKeepsTheVerbAt60(t *testing.T) {
	m := flashModel(t, 60, 18)
	m = m.send(views.FlashMsg{Level: views.FlashInfo, Text: `["dwk_queue_due", "invoices", 1767312005000, "0e580e53fa979546f8fe"] is gone`})
	line := ansi.Strip(m.messageLine())
	if !strings.Contains(line, `fe"] is gone (all in :log)`) || !strings.Contains(line, `["dwk_`) {
		t.Errorf("the flash at 60 columns: %q", line)
	}
}

// TestStatusBarSteady: a read in flight is the refresh at work: the
// status bar says "live 1s" until it has run longer than slowLoad, then
// "loading…" (it flipped every second over a slow link); and one row is "1
// row".
func TestStatusBarSteady(t *testing.T) {
	m := flashModel(t, 120, 40)
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	m.wall = func() time.Time { return now }
	m = m.send(viewtest.Key("5")) // Compose: no load of its own
	m.refresh.reading = true      // a version read in flight, as a tick starts it
	m = m.send(clockTick{})
	if bar := ansi.Strip(m.statusBar()); !strings.Contains(bar, "live 1s") {
		t.Errorf("a read just begun: %q", bar)
	}
	now = now.Add(2 * time.Second)
	if bar := ansi.Strip(m.statusBar()); !strings.Contains(bar, "loading…") {
		t.Errorf("a read 2s long: %q", bar)
	}
	m = m.send(versionRead{session: m.session, version: store.Version{Seq: 4, Rows: 1}})
	bar := ansi.Strip(m.statusBar())
	if !strings.Contains(bar, "seq 4 · 1 row ") || !strings.Contains(bar, "live 1s") {
		t.Errorf("after the read: %q", bar)
	}
}
