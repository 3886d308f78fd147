package browse

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/views"
	"kvdeck/views/widgets"
)

// ReaderKeys are the keys of the value reader (v): the entry pane takes
// the keys to page through a long value and search in it.
type ReaderKeys struct {
	widgets.NavKeys
	Page, Find, Next, Prev, Close key.Binding
}

// DefaultReaderKeys returns the value reader's keys.
func DefaultReaderKeys() ReaderKeys {
	return ReaderKeys{
		NavKeys: widgets.DefaultNavKeys(),
		Page:    key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "next page")),
		Find:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search in the value")),
		Next:    key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		Prev:    key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match")),
		Close:   key.NewBinding(key.WithKeys("esc", "q", "v"), key.WithHelp("esc", "back to the tree")),
	}
}

// readerState is the value reader: the entry pane has the keys.
type readerState struct {
	query  string
	typing bool
	in     textinput.Model
	match  int // the line of the current match, -1 for none
}

// startReading gives the entry pane the keys.
func (m *Model) startReading() tea.Cmd {
	if !m.entry.loaded || !m.entry.found {
		return views.Flash(views.FlashInfo, "select a stored key: v reads its value")
	}
	m.reader = &readerState{in: widgets.NewInput("/ ", "search in the value", m.styles), match: -1}
	return nil
}

// handleReading pages, searches and closes the reader.
func (m Model) handleReading(msg tea.KeyMsg) (Model, tea.Cmd) {
	r, k := m.reader, m.keys.Reader
	rows := m.entryRows()
	if r.typing {
		switch {
		case key.Matches(msg, m.input.Accept):
			r.typing, r.query = false, r.in.Value()
			r.in.Blur()
			m.findMatch(m.entryOff, 1)
		case key.Matches(msg, m.input.Cancel):
			r.typing = false
			r.in.Blur()
		default:
			r.in, _ = r.in.Update(msg)
		}
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Close):
		m.reader = nil
	case key.Matches(msg, k.Up):
		m.scrollEntry(-1)
	case key.Matches(msg, k.Down):
		m.scrollEntry(1)
	case key.Matches(msg, k.PageUp):
		m.scrollEntry(-rows)
	case key.Matches(msg, k.PageDown), key.Matches(msg, k.Page):
		m.scrollEntry(rows)
	case key.Matches(msg, k.Top):
		m.scrollEntry(-1 << 30)
	case key.Matches(msg, k.Bottom):
		m.scrollEntry(1 << 30)
	case key.Matches(msg, k.Find):
		r.typing = true
		r.in.SetValue(r.query)
		r.in.CursorEnd()
		return m, r.in.Focus()
	case key.Matches(msg, k.Next):
		m.findMatch(r.match+1, 1)
	case key.Matches(msg, k.Prev):
		m.findMatch(r.match-1, -1)
	}
	return m, nil
}

// findMatch moves to the first line from `from` on (dir 1) or back (dir
// -1) that holds the query, wrapping around, and scrolls it into view.
func (m *Model) findMatch(from, dir int) {
	r := m.reader
	r.match = -1
	if r.query == "" {
		return
	}
	_, body := m.entryLines(m.entryInner())
	q := strings.ToLower(r.query)
	for step := range len(body) {
		i := ((from+dir*step)%len(body) + len(body)) % len(body)
		if strings.Contains(strings.ToLower(ansi.Strip(body[i])), q) {
			r.match = i
			m.entryOff = widgets.ScrollTo(m.entryOff, i, m.entryRows(), len(body))
			return
		}
	}
}

// readerTitle is the entry pane's title while reading: where, the
// search and its keys.
func (m Model) readerTitle(off, rows, n int) string {
	r := m.reader
	title := m.styles.PaneTitle.Render("VALUE ") + m.styles.Muted.Render(fmt.Sprintf("%d-%d/%d ", off+1, min(off+rows, n), n))
	switch {
	case r.typing:
		return r.in.View()
	case r.query != "" && r.match < 0:
		return title + m.styles.Warn.Render(fmt.Sprintf("no %q", r.query))
	case r.query != "":
		return title + m.styles.Accent.Render(fmt.Sprintf("%q line %d", r.query, r.match+1)) + m.styles.Muted.Render(" n/N · esc")
	}
	return title + m.styles.Muted.Render("space page · / search · esc")
}

// readerLine marks the line of the current match.
func (m Model) readerLine(i int, line string) string {
	if m.reader != nil && i == m.reader.match {
		return m.styles.Selected.Render(ansi.Strip(line))
	}
	return line
}
