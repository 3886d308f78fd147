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

// The value reader (v) pages through the whole value, whatever its size,
// holding a window of it: the entry pane shows at most widgets.ValueCap
// bytes, and the reader once laid the whole value out in memory (and
// before that searched the first 64 KiB only, answering "no match" past
// them: issue 22 point 7). Its rows come from scans of the value in the
// store, a chunk per command (readerscan.go, readerload.go): an index of
// marks, a window of a few screens around the rows shown, and the search
// (readerfind.go).

// ReaderKeys are the keys of the value reader (v): the entry pane takes
// the keys to page through a long value and search in it.
type ReaderKeys struct {
	widgets.NavKeys
	Page, Find, Next, Prev, Lines, Pager, Close key.Binding
	// The JSON tree (readertree.go): T shows it; enter, → and ← fold.
	Tree, Toggle, Unfold, Fold key.Binding
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
		Tree:    key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "the value as a foldable JSON tree (or the text again)")),
		Toggle:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "fold/unfold the node")),
		Unfold:  key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "unfold, then step in")),
		Fold:    key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "fold, then go to the parent")),
	}
}

// readerState is the value reader: the entry pane has the keys.
type readerState struct {
	query   string
	typing  bool
	in      textinput.Model
	off     int  // first row shown
	lines   bool // JSON strings' \n shown as line breaks
	gen     int  // tags the scans: an answer for an older one is dropped
	idx     readerIndex
	win     readerWindow
	winBusy bool // a window scan is in flight, for the rows from winWant
	winGen  int
	winWant int
	find    readerSearch
	tree    readerTree
	bottom  bool   // G while the index was still counting: go on to the end
	note    string // what the last n/N or scan said
}

// startReading gives the entry pane the keys.
func (m *Model) startReading() tea.Cmd {
	if !m.entry.loaded || !m.entry.found {
		return views.Flash(views.FlashInfo, "select a stored key: v reads its value")
	}
	m.reader = &readerState{in: widgets.NewInput("/ ", "search in the value", m.styles), find: readerSearch{match: -1}}
	return m.wantLayout()
}

// handleReading pages, searches and closes the reader.
func (m Model) handleReading(msg tea.KeyMsg) (Model, tea.Cmd) {
	r, k := m.reader, m.keys.Reader
	if r.typing {
		return m.typeQuery(msg)
	}
	if r.tree.on {
		return m.handleTree(msg)
	}
	rows := m.entryRows()
	r.note = ""
	switch {
	case key.Matches(msg, k.Close):
		if r.find.busy && key.Matches(msg, m.input.Cancel) {
			r.stopFind() // esc stops the search first
			return m, nil
		}
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
		r.bottom = false
		m.scrollReader(-1 << 30)
	case key.Matches(msg, k.Bottom):
		r.bottom = r.idx.busy // the rest is still being counted
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
	case key.Matches(msg, k.Tree):
		return m, m.toggleTree()
	case key.Matches(msg, k.Pager):
		return m, m.startPager()
	}
	return m, nil
}

// typeQuery edits the query; enter searches the whole value for it.
func (m Model) typeQuery(msg tea.KeyMsg) (Model, tea.Cmd) {
	r := m.reader
	switch {
	case key.Matches(msg, m.input.Accept):
		r.typing, r.query = false, r.in.Value()
		r.in.Blur()
		return m, m.find(true)
	case key.Matches(msg, m.input.Cancel):
		r.typing = false
		r.in.Blur()
	default:
		r.in, _ = r.in.Update(msg)
	}
	return m, nil
}

// scrollReader scrolls the reader by delta rows, within the rows counted.
func (m *Model) scrollReader(delta int) {
	m.reader.off = widgets.ClampOffset(m.reader.off+delta, m.entryRows(), m.reader.idx.rows)
}

// readerView is the entry pane while reading: the rows on screen from the
// window, "…" for a row still being read.
func (m Model) readerView(w, h int) string {
	r := m.reader
	if r.tree.on {
		return m.jsonTreeView(w, h)
	}
	rows, n := m.entryRows(), r.idx.rows
	off := widgets.ClampOffset(r.off, rows, n)
	lines := []string{widgets.FitWidth(m.readerTitle(off, rows, n), m.entryInner())}
	if n == 0 {
		lines = append(lines, m.styles.Muted.Render(fmt.Sprintf("reading the value (%s)…", widgets.BytesText(r.idx.size))))
	}
	cur := -1
	if r.find.match >= 0 {
		cur = r.find.matches[r.find.match]
	}
	for i := off; i < min(off+rows, n); i++ {
		j := i - r.win.from
		if j < 0 || j >= len(r.win.rows) {
			lines = append(lines, m.styles.Muted.Render("…"))
			continue
		}
		row := widgets.FitWidth(r.win.rows[j], m.entryInner()) // a window for a wider pane, until the new one arrives
		if i == cur {
			lines = append(lines, m.styles.Selected.Render(row))
		} else {
			lines = append(lines, m.styles.Text.Render(row))
		}
	}
	return widgets.Pane(m.styles.PaneFocused, strings.Join(lines, "\n"), w, h)
}

// readerTitle is the entry pane's title while reading: where, the
// reading and the search, and the keys.
func (m Model) readerTitle(off, rows, n int) string {
	r, st := m.reader, m.styles
	if r.typing {
		return r.in.View()
	}
	total := fmt.Sprint(n)
	if r.idx.busy {
		total = "≥" + total
	}
	title := st.PaneTitle.Render("VALUE ") + st.Muted.Render(fmt.Sprintf("%d-%d/%s ", off+1, min(off+rows, n), total))
	switch {
	case r.idx.err != nil:
		return title + st.Warn.Render("✗ "+widgets.Sanitize(r.idx.err.Error()))
	case r.query != "":
		return title + m.searchTitle()
	case r.note != "":
		return title + st.Warn.Render(widgets.Sanitize(r.note))
	case r.idx.busy:
		return title + st.Muted.Render(fmt.Sprintf("reading %s of %s…", widgets.BytesText(r.idx.read), widgets.BytesText(r.idx.size)))
	}
	return title + st.Muted.Render(`space page · / search · L \n · T tree · | pager · esc`)
}

// searchTitle says where the search is.
func (m Model) searchTitle() string {
	f, st := m.reader.find, m.styles
	q := fmt.Sprintf("%q", widgets.Sanitize(m.reader.query))
	progress := fmt.Sprintf("%s of %s", widgets.BytesText(f.read), widgets.BytesText(f.size))
	count := fmt.Sprint(f.count)
	if f.busy || f.stopped {
		count = "≥" + count
	}
	switch {
	case f.err != nil:
		return st.Warn.Render(fmt.Sprintf("%s: the search failed at %s: %s", q, progress, widgets.Sanitize(f.err.Error())))
	case f.count == 0 && f.busy:
		return st.Muted.Render(fmt.Sprintf("searching for %s: %s…", q, progress)) + st.Muted.Render(" esc stops")
	case f.count == 0 && f.stopped:
		return st.Warn.Render(fmt.Sprintf("no %s in the first %s (stopped)", q, progress))
	case f.count == 0:
		return st.Warn.Render(fmt.Sprintf("no %s in the whole value", q))
	}
	text := fmt.Sprintf("%s %s match(es)", q, count)
	if f.match >= 0 {
		text = fmt.Sprintf("%s match %d of %s", q, f.match+1, count)
	}
	switch {
	case f.busy:
		return st.Accent.Render(text+" so far") + st.Muted.Render(" · searching "+progress+"… esc stops")
	case f.stopped:
		text += " (stopped at " + progress + ")"
	}
	out := st.Accent.Render(text)
	if m.reader.note != "" {
		out += " " + st.Warn.Render(m.reader.note)
	}
	return out + st.Muted.Render(" n/N · esc")
}
