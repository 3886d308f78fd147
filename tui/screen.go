package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// textScreen is the help (?) or the message log (:log) over the tab: a
// framed page of lines that scrolls (↑↓, pgup/pgdn, g/G, the wheel) when
// it is taller than the screen; ?, q or esc closes it.
type textScreen struct {
	bare
	log   bool // the message log, else the help
	fleet bool // the help of the Fleet view
	off   int  // the first line shown
}

func (s *textScreen) layer() layer {
	if s.log {
		return layerLog
	}
	return layerHelp
}

// lines are the page's lines below its title: the help is the global
// keys and every live key of the focused view, then notes true of this
// tab; the log every flash and refresh error of the session, in full,
// oldest first.
func (s *textScreen) lines(m model) []string {
	switch {
	case s.log:
		return m.logLines()
	case s.fleet:
		return m.fleetHelpLines()
	}
	return m.helpLines()
}

func (s *textScreen) key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool) {
	if key.Matches(msg, m.keys.Help, m.keys.Quit, m.input.Cancel) {
		m.overlays.drop(s.layer())
		return m, nil, true
	}
	return s.scroll(m, scrollHelp(msg, s.off, m.helpPage()))
}

func (s *textScreen) mouse(m model, msg tea.MouseMsg) (model, tea.Cmd, bool) {
	return s.scroll(m, scrollHelpWheel(msg, s.off))
}

// scroll shows the page from line off (kept within the lines).
func (s *textScreen) scroll(m model, off int) (model, tea.Cmd, bool) {
	t := *s
	t.off = clampHelp(off, len(s.lines(m)), m.helpPage())
	m.overlays.put(&t)
	return m, nil, true
}

func (s *textScreen) draw(m model, _ string, h int) string {
	title := "HELP · " + m.tab.String()
	switch {
	case s.log:
		title = "MESSAGE LOG"
	case s.fleet:
		title = "HELP · Fleet"
	}
	return m.scrolled(title, s.lines(m), h, s.off)
}

// openLog opens the message log at its end (the newest message).
func (m *model) openLog() {
	s := &textScreen{log: true}
	s.off = clampHelp(1<<20, len(s.lines(*m)), m.helpPage())
	m.overlays.put(s)
}
