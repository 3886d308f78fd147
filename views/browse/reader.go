package browse

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views"
	"kvdeck/views/widgets"
)

// The value reader (v) pages through the whole value, whatever its size:
// the entry pane shows at most widgets.ValueCap bytes, and the reader
// used to search those lines only, answering "no match" past them (issue
// 22 point 7). It lays the whole value out once per width (readertext.go)
// as plain, sanitized text, in a command (a 1 MB value takes ~0.1 s, a
// 100 MB one seconds: never on the UI goroutine), and draws only the rows
// on screen. Until a layout for the pane's width arrives, the last one
// is shown (rows cut at the width) or "laying the value out…".

// laidOut answers layValueOut.
type laidOut struct {
	session int
	text    *readerText
}

// wantLayout lays the value out for the reader when what is shown is not
// for this value, width and mode, and no layout for them is in flight.
func (m *Model) wantLayout() tea.Cmd {
	r := m.reader
	if r == nil {
		return nil
	}
	k := layoutKey{m.entry.answers, m.entryInner(), r.lines}
	if r.text != nil && r.text.key() == k || r.busy && r.pending == k {
		return nil
	}
	r.pending, r.busy = k, true
	value, session := m.entry.e.Value, m.deps.Session
	return func() tea.Msg {
		t := layoutValue(value, k.width, k.lines)
		t.id = k.id
		return laidOut{session: session, text: t}
	}
}

// onLaidOut shows a layout, and runs the search typed while it was made.
func (m Model) onLaidOut(msg laidOut) (Model, tea.Cmd) {
	r := m.reader
	if r == nil || msg.session != m.deps.Session || !r.busy || msg.text.key() != r.pending {
		return m, nil
	}
	r.busy = false
	r.text = msg.text
	var find tea.Cmd
	if r.query != "" {
		find = m.find(r.findWaits)
		r.findWaits = false
	}
	r.off = widgets.ClampOffset(r.off, m.entryRows(), len(r.text.rows))
	return m, tea.Batch(find, m.wantLayout())
}

// laidOutNow reports whether the rows shown are the value's at the
// pane's width and mode.
func (m Model) laidOutNow() bool {
	r := m.reader
	return r.text != nil && r.text.key() == layoutKey{m.entry.answers, m.entryInner(), r.lines}
}

// ReaderKeys are the keys of the value reader (v): the entry pane takes
// the keys to page through a long value and search in it.
type ReaderKeys struct {
	widgets.NavKeys
	Page, Find, Next, Prev, Lines, Pager, Close key.Binding
}

// DefaultReaderKeys returns the value reader's keys.
func DefaultReaderKeys() ReaderKeys {
	return ReaderKeys{
		NavKeys: widgets.DefaultNavKeys(),
		Page:    key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "next page")),
		Find:    key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search in the value")),
		Next:    key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		Prev:    key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match")),
		Lines:   key.NewBinding(key.WithKeys("L"), key.WithHelp("L", `strings' \n as lines`)),
		Pager:   key.NewBinding(key.WithKeys("|"), key.WithHelp("|", "pipe the value to $PAGER or a command")),
		Close:   key.NewBinding(key.WithKeys("esc", "q", "v"), key.WithHelp("esc", "back to the tree")),
	}
}

// readerState is the value reader: the entry pane has the keys.
type readerState struct {
	query   string
	typing  bool
	in      textinput.Model
	off     int   // first row shown
	matches []int // the rows holding the query, in order
	match   int   // index into matches of the current one, -1 for none
	lines   bool  // JSON strings' \n shown as line breaks
	text    *readerText
	// pending is the layout in flight (busy); findWaits: a query was
	// typed before it arrived, and goes to its first match then.
	pending   layoutKey
	busy      bool
	findWaits bool
	finder    finder // the search in flight (readerfind.go)
}

// startReading gives the entry pane the keys.
func (m *Model) startReading() tea.Cmd {
	if !m.entry.loaded || !m.entry.found {
		return views.Flash(views.FlashInfo, "select a stored key: v reads its value")
	}
	m.reader = &readerState{in: widgets.NewInput("/ ", "search in the value", m.styles), match: -1}
	return m.wantLayout()
}

// readerRows returns the value's rows as last laid out (none before the
// first layout arrives).
func (m Model) readerRows() *readerText {
	if m.reader.text == nil {
		return &readerText{}
	}
	return m.reader.text
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
			if !m.laidOutNow() {
				// The search runs on the layout for this width and mode.
				r.stopFind()
				r.matches, r.match, r.findWaits = nil, -1, true
				return m, nil
			}
			return m, m.find(true)
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
		r.stopFind()
		m.reader = nil
	case key.Matches(msg, k.Up):
		m.scrollReader(-1)
	case key.Matches(msg, k.Down):
		m.scrollReader(1)
	case key.Matches(msg, k.PageUp):
		m.scrollReader(-rows)
	case key.Matches(msg, k.PageDown), key.Matches(msg, k.Page):
		m.scrollReader(rows)
	case key.Matches(msg, k.Top):
		m.scrollReader(-1 << 30)
	case key.Matches(msg, k.Bottom):
		m.scrollReader(1 << 30)
	case key.Matches(msg, k.Find):
		// A fresh query: the last one is the placeholder, not the text.
		r.typing = true
		r.in.SetValue("")
		if r.query != "" {
			r.in.Placeholder = r.query
		}
		return m, r.in.Focus()
	case key.Matches(msg, k.Next):
		m.nextMatch(1)
	case key.Matches(msg, k.Prev):
		m.nextMatch(-1)
	case key.Matches(msg, k.Lines):
		r.lines = !r.lines
		r.off = 0
		return m, m.wantLayout()
	case key.Matches(msg, k.Pager):
		return m, m.startPager()
	}
	return m, nil
}

// scrollReader scrolls the reader by delta rows, within the value.
func (m *Model) scrollReader(delta int) {
	m.reader.off = widgets.ClampOffset(m.reader.off+delta, m.entryRows(), len(m.readerRows().rows))
}

// nextMatch goes to the next match (dir 1) or the previous one (-1),
// wrapping around. From a match on screen it steps to its neighbour;
// otherwise it starts from the rows shown, so that n after G or a page
// finds the match after what is on screen, not after the last one found.
func (m *Model) nextMatch(dir int) {
	r := m.reader
	if len(r.matches) == 0 {
		r.match = -1
		return
	}
	rows := m.entryRows()
	onScreen := r.match >= 0 && r.matches[r.match] >= r.off && r.matches[r.match] < r.off+rows
	switch {
	case onScreen:
		r.match = (r.match + dir + len(r.matches)) % len(r.matches)
	case dir > 0:
		r.match = 0
		for i, row := range r.matches {
			if row >= r.off {
				r.match = i
				break
			}
		}
	default:
		r.match = len(r.matches) - 1
		for i := len(r.matches) - 1; i >= 0; i-- {
			if r.matches[i] < r.off+rows {
				r.match = i
				break
			}
		}
	}
	r.off = widgets.ScrollTo(r.off, r.matches[r.match], rows, len(m.readerRows().rows))
}

// readerView is the entry pane while reading.
func (m Model) readerView(w, h int) string {
	r := m.reader
	t := m.readerRows()
	rows := m.entryRows()
	off := widgets.ClampOffset(r.off, rows, len(t.rows))
	lines := []string{widgets.FitWidth(m.readerTitle(off, rows, len(t.rows)), m.entryInner())}
	if r.text == nil {
		lines = append(lines, m.styles.Muted.Render(fmt.Sprintf("laying the value out (%s)…", widgets.BytesText(int64(len(m.entry.e.Value))))))
	}
	cur := -1
	if r.match >= 0 {
		cur = r.matches[r.match]
	}
	for i := off; i < min(off+rows, len(t.rows)); i++ {
		row := widgets.FitWidth(t.row(i), m.entryInner()) // a layout for a wider pane, until the new one arrives
		if i == cur {
			lines = append(lines, m.styles.Selected.Render(row))
		} else {
			lines = append(lines, m.styles.Text.Render(row))
		}
	}
	return widgets.Pane(m.styles.PaneFocused, strings.Join(lines, "\n"), w, h)
}

// readerTitle is the entry pane's title while reading: where, the
// search and its keys.
func (m Model) readerTitle(off, rows, n int) string {
	r := m.reader
	title := m.styles.PaneTitle.Render("VALUE ") + m.styles.Muted.Render(fmt.Sprintf("%d-%d/%d ", off+1, min(off+rows, n), n))
	switch {
	case r.typing:
		return r.in.View()
	case r.query != "" && r.finder.busy || r.findWaits:
		return title + m.styles.Muted.Render(fmt.Sprintf("searching for %q…", widgets.Sanitize(r.query)))
	case r.query != "" && r.match < 0:
		return title + m.styles.Warn.Render(fmt.Sprintf("no %q in the whole value", widgets.Sanitize(r.query)))
	case r.query != "":
		return title + m.styles.Accent.Render(fmt.Sprintf("%q match %d of %d", widgets.Sanitize(r.query), r.match+1, len(r.matches))) + m.styles.Muted.Render(" n/N · esc")
	}
	return title + m.styles.Muted.Render(`space page · / search · L \n · | pager · esc`)
}
