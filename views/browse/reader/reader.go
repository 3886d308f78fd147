// Package reader is Browse's value reader (v): it pages through the whole
// value of the selected row, whatever its size, holding a window of it,
// searches it (/) and shows it as a foldable JSON tree (T); and its pipe
// (|): the value streamed to $PAGER or a command typed at a prompt. Its
// rows come from scans of the value in the store, a chunk per command
// (scan.go, index.go): an index of marks, a window of a few screens
// around the rows shown, and the search (find.go). The entry pane shows
// at most widgets.ValueCap bytes; the reader reads the rest.
package reader

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/browse/entry"
	"kvdeck/views/widgets"
)

// Keys are the keys of the value reader (v): the entry pane takes the
// keys to page through a long value and search in it.
type Keys struct {
	widgets.NavKeys
	Page, Find, Next, Prev, Lines, Pager, Close key.Binding
	// The JSON tree (tree.go): T shows it; enter, → and ← fold.
	Tree, Toggle, Unfold, Fold key.Binding
}

// DefaultKeys returns the value reader's keys.
func DefaultKeys() Keys {
	return Keys{
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

// Model is the value reader of the selected row and its pipe prompt.
type Model struct {
	// KeyMap is the reader's keys (New: DefaultKeys).
	KeyMap Keys

	deps    views.Deps
	styles  themes.Styles
	input   widgets.InputKeys
	focused bool
	row     entry.Row // the row read, as the parent read it last (SetRow)
	// width, height: the entry pane's rectangle; promptWidth, the pipe
	// prompt's width (the tree's footer).
	width, height, promptWidth int
	gen                        int  // tags the scans, across opens: an answer for an older one is dropped
	open                       bool // the reader has the entry pane
	reading
	pipe *textinput.Model // |'s command prompt (pipe.go), when open
	// history is the commands typed at the prompt, the newest last;
	// histAt, the one the prompt shows (len: none).
	history    []string
	histAt     int
	histLoaded bool        // the kept history was read (history.go)
	pipeGen    int         // tags the filters' answers
	out        *pipeOutput // a filter's run and output (output.go), over the entry pane
}

// reading is the open reader's state, new at each v.
type reading struct {
	query   string
	typing  bool
	in      textinput.Model
	off     int  // first row shown
	lines   bool // JSON strings' \n shown as line breaks
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

// New returns a closed reader over deps.Store.
func New(deps views.Deps, styles themes.Styles) Model {
	return Model{KeyMap: DefaultKeys(), deps: deps, styles: styles, input: widgets.DefaultInputKeys(), focused: true}
}

// SetSize sets the entry pane's rectangle, the reader's when it is open.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// SetPromptWidth sets the width the pipe prompt opens at.
func (m *Model) SetPromptWidth(w int) { m.promptWidth = w }

// SetRow hands the reader the selected row as the parent read it last;
// Layout lays it out again when its stamp changed.
func (m *Model) SetRow(row entry.Row) { m.row = row }

// Focus gives the reader the keys.
func (m *Model) Focus() { m.focused = true }

// Blur takes the keys away; a blurred reader ignores keys.
func (m *Model) Blur() { m.focused = false }

// Reading reports whether the reader has the entry pane (v, or a
// filter's output).
func (m Model) Reading() bool { return m.open || m.out != nil }

// Piping reports whether the pipe prompt is open (|).
func (m Model) Piping() bool { return m.pipe != nil }

// Capturing reports whether the reader or its prompt has the keys.
func (m Model) Capturing() bool { return m.Reading() || m.pipe != nil }

// Typing reports whether a text input of the reader has the keys (the
// pipe prompt, the search's query): every key is text then.
func (m Model) Typing() bool { return m.pipe != nil || (m.open && m.typing) }

// Offset is the first row of the value the reader shows.
func (m Model) Offset() int { return m.off }

// Match is the search's current match (an index into its matches), -1
// for none.
func (m Model) Match() int { return m.find.match }

// Open gives the reader the entry pane, on row.
func (m *Model) Open(row entry.Row) tea.Cmd {
	if !row.Found {
		return views.Flash(views.FlashInfo, "select a stored key: v reads its value")
	}
	m.row, m.open = row, true
	m.reading = reading{in: widgets.NewInput("/ ", "search in the value", m.styles), find: readerSearch{match: -1}}
	return m.Layout()
}

// Update handles a message: keys while the prompt or the reader is open,
// and the answers of its scans; it ignores every other message.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch {
		case !m.focused:
		case m.pipe != nil:
			return m.handlePipe(msg)
		case m.out != nil:
			return m.handleOutput(msg)
		case m.open:
			return m.handleKey(msg)
		}
	case indexStep:
		return m.onIndexStep(msg)
	case windowRead:
		return m.onWindow(msg)
	case searchStep:
		return m.onSearchStep(msg)
	case treeParsed:
		return m.onTreeParsed(msg)
	case pagerClosed:
		return m, onPager(msg)
	case filterDone:
		return m.onFilterDone(msg)
	}
	return m, nil
}

// handleKey pages, searches and closes the reader.
func (m Model) handleKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case m.typing:
		return m.typeQuery(msg)
	case m.tree.on:
		return m.handleTree(msg)
	}
	return m.handleText(msg)
}

// handleText handles the keys of the text view.
func (m Model) handleText(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.KeyMap
	m.note = ""
	if delta, ok := navDelta(msg, k, m.rows()); ok {
		switch {
		case key.Matches(msg, k.Top):
			m.bottom = false
		case key.Matches(msg, k.Bottom):
			m.bottom = m.idx.busy // the rest is still being counted
		}
		m.scroll(delta)
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Close):
		if m.find.busy && key.Matches(msg, m.input.Cancel) {
			m.stopFind() // esc stops the search first
			return m, nil
		}
		m.open = false
	case key.Matches(msg, k.Find):
		// A fresh query: the last one is the placeholder, not the text.
		m.typing = true
		m.in.SetValue("")
		if m.query != "" {
			m.in.Placeholder = m.query
		}
		return m, m.in.Focus()
	case key.Matches(msg, k.Next):
		m.nextMatch(1)
	case key.Matches(msg, k.Prev):
		m.nextMatch(-1)
	case key.Matches(msg, k.Lines):
		m.lines = !m.lines
		m.off = 0
		return m, m.Layout()
	case key.Matches(msg, k.Tree):
		return m, m.toggleTree()
	case key.Matches(msg, k.Pager):
		return m, m.OpenPipe(m.row)
	}
	return m, nil
}

// navDelta is how far a move key goes, in rows of a screen of rows: the
// text and the tree move alike.
func navDelta(msg tea.KeyMsg, k Keys, rows int) (int, bool) {
	switch {
	case key.Matches(msg, k.Up):
		return -1, true
	case key.Matches(msg, k.Down):
		return 1, true
	case key.Matches(msg, k.PageUp):
		return -rows, true
	case key.Matches(msg, k.PageDown), key.Matches(msg, k.Page):
		return rows, true
	case key.Matches(msg, k.Top):
		return -1 << 30, true
	case key.Matches(msg, k.Bottom):
		return 1 << 30, true
	}
	return 0, false
}

// typeQuery edits the query; enter searches the whole value for it.
func (m Model) typeQuery(msg tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.input.Accept):
		m.typing, m.query = false, m.in.Value()
		m.in.Blur()
		return m, m.startFind(true)
	case key.Matches(msg, m.input.Cancel):
		m.typing = false
		m.in.Blur()
	default:
		m.in, _ = m.in.Update(msg)
	}
	return m, nil
}

// inner is the width of the pane's inside.
func (m Model) inner() int { return m.width - m.styles.Pane.GetHorizontalFrameSize() }

// rows is how many rows of the value the pane shows (under its title).
func (m Model) rows() int {
	return max(m.height-m.styles.Pane.GetVerticalFrameSize()-1, 1)
}

// scroll scrolls the reader by delta rows, within the rows counted.
func (m *Model) scroll(delta int) {
	m.off = widgets.ClampOffset(m.off+delta, m.rows(), m.idx.rows)
}

// View is the entry pane while reading: the rows on screen from the
// window, "…" for a row still being read.
func (m Model) View() string {
	w, h := m.width, m.height
	if m.out != nil {
		return m.outputView()
	}
	if m.tree.on {
		return m.jsonTreeView(w, h)
	}
	rows, n := m.rows(), m.idx.rows
	off := widgets.ClampOffset(m.off, rows, n)
	lines := []string{widgets.FitWidth(m.title(off, rows, n), m.inner())}
	if n == 0 {
		lines = append(lines, m.styles.Muted.Render(fmt.Sprintf("reading the value (%s)…", widgets.BytesText(m.idx.size))))
	}
	cur := -1
	if m.find.match >= 0 {
		cur = m.find.matches[m.find.match]
	}
	for i := off; i < min(off+rows, n); i++ {
		j := i - m.win.from
		if j < 0 || j >= len(m.win.rows) {
			lines = append(lines, m.styles.Muted.Render("…"))
			continue
		}
		row := widgets.FitWidth(m.win.rows[j], m.inner()) // a window for a wider pane, until the new one arrives
		if i == cur {
			lines = append(lines, m.styles.Selected.Render(row))
		} else {
			lines = append(lines, m.styles.Text.Render(row))
		}
	}
	return widgets.Pane(m.styles.PaneFocused, strings.Join(lines, "\n"), w, h)
}

// title is the entry pane's title while reading: where, the reading and
// the search, and the keys.
func (m Model) title(off, rows, n int) string {
	st := m.styles
	if m.typing {
		return m.in.View()
	}
	total := fmt.Sprint(n)
	if m.idx.busy {
		total = "≥" + total
	}
	title := st.PaneTitle.Render("VALUE ") + st.Muted.Render(fmt.Sprintf("%d-%d/%s ", off+1, min(off+rows, n), total))
	switch {
	case m.idx.err != nil:
		return title + st.Warn.Render("✗ "+widgets.Sanitize(m.idx.err.Error()))
	case m.query != "":
		return title + m.searchTitle()
	case m.note != "":
		return title + st.Warn.Render(widgets.Sanitize(m.note))
	case m.idx.busy:
		return title + st.Muted.Render(fmt.Sprintf("reading %s of %s…", widgets.BytesText(m.idx.read), widgets.BytesText(m.idx.size)))
	}
	return title + st.Muted.Render(`space page · / search · L \n · T tree · | pager · esc`)
}

// searchTitle says where the search is.
func (m Model) searchTitle() string {
	f, st := m.find, m.styles
	q := fmt.Sprintf("%q", widgets.Sanitize(m.query))
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
	if m.note != "" {
		out += " " + st.Warn.Render(m.note)
	}
	return out + st.Muted.Render(" n/N · esc")
}

// ShortHelp returns the main keys of what is open: the prompt, the query,
// the tree or the text.
func (m Model) ShortHelp() []key.Binding {
	k := m.KeyMap
	switch {
	case m.pipe != nil, m.typing:
		return []key.Binding{m.input.Accept, m.input.Cancel}
	case m.out != nil:
		close := k.Close
		close.SetHelp("esc", "close the output")
		if m.out.running {
			close.SetHelp("esc", "stop the command")
		}
		return []key.Binding{k.PageDown, k.PageUp, k.Pager, close}
	case m.tree.on:
		return []key.Binding{k.Toggle, k.Unfold, k.Fold, k.Tree, k.Pager, k.Close}
	}
	return []key.Binding{k.PageDown, k.PageUp, k.Page, k.Find, k.Next, k.Prev, k.Lines, k.Tree, k.Pager, k.Close}
}

// FullHelp returns every key of what is open.
func (m Model) FullHelp() [][]key.Binding {
	if m.pipe != nil {
		return [][]key.Binding{m.ShortHelp()}
	}
	return [][]key.Binding{m.KeyMap.Bindings(), m.ShortHelp()}
}
