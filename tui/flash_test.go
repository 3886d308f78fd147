package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

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
// the status bar said the store was gone); issue 22 point 10.
func TestNewestMessageWins(t *testing.T) {
	m := flashModel(t, 120, 40)
	m = m.send(views.FlashMsg{Level: views.FlashOK, Text: "copied the key"})
	m = m.send(versionRead{session: m.session, err: errors.New("database unreachable: cannot reach the server")})
	if line := ansi.Strip(m.messageLine()); !strings.Contains(line, "refresh: database unreachable") || strings.Contains(line, "copied") {
		t.Errorf("the flash line after a newer error: %q", line)
	}
}

// TestFlashKeepsTheVerbAt60: at 60 columns a flash too long for the line
// shortens its key, not what it says of it (issue 22 point 10).
func TestFlashKeepsTheVerbAt60(t *testing.T) {
	m := flashModel(t, 60, 18)
	m = m.send(views.FlashMsg{Level: views.FlashInfo, Text: `["dwk_queue_due", "invoices", 1767312005000, "0e580e53fa979546f8fe"] is gone`})
	line := ansi.Strip(m.messageLine())
	if !strings.Contains(line, `fe"] is gone (all in :log)`) || !strings.Contains(line, `["dwk_`) {
		t.Errorf("the flash at 60 columns: %q", line)
	}
}
