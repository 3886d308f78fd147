// Package browse is the Browse tab: the key-prefix tree on the left, the
// selected entry on the right, with the edit and new-key form and compare-
// and-set writes.
package browse

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/browse/editor"
	"kvdeck/views/browse/reader"
	"kvdeck/views/browse/search"
	"kvdeck/views/widgets"
)

// Keys are the Browse view's key bindings.
type Keys struct {
	widgets.NavKeys                  // a list's moves; G loads the level to its end
	Expand, Collapse, Toggle         key.Binding
	ScrollUp, ScrollDown             key.Binding // the entry pane
	Edit, New, Delete, Copy, Compose key.Binding
	Filter, ClearFilter, Reload      key.Binding
	FilterAll                        key.Binding // while filtering: load the whole level
	Record                           key.Binding // a dwk_* key's coordination tab
	CopyValue                        key.Binding
	Search                           key.Binding      // search values under the selected prefix
	Read                             key.Binding      // the value reader: page and search the value
	Pager                            key.Binding      // the value, streamed, to $PAGER
	EditExternal                     key.Binding      // edit the value in $EDITOR
	Diff                             key.Binding      // what changed since you looked (seen.go)
	PutBack                          key.Binding      // at a past point (:at): put keys back as then (past.go)
	History                          key.Binding      // the selected key's history across restore points
	Reader                           ReaderKeys       // the value reader (views/browse/reader)
	Marks                            widgets.MarkKeys // space, ctrl+a, B (bulk.go)
}

// DefaultKeys returns the Browse view's default key bindings.
func DefaultKeys() Keys {
	nav := widgets.DefaultNavKeys()
	nav.Bottom.SetHelp("G/end", "last (loads the level to its end)")
	return Keys{
		NavKeys:      nav,
		Expand:       key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "expand")),
		Collapse:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "collapse / parent")),
		Toggle:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open/close")),
		ScrollUp:     key.NewBinding(key.WithKeys("K", "shift+up"), key.WithHelp("K", "scroll value up")),
		ScrollDown:   key.NewBinding(key.WithKeys("J", "shift+down"), key.WithHelp("J", "scroll value down")),
		Edit:         key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit value (CAS)")),
		New:          key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new key")),
		Delete:       key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete (confirm, CAS)")),
		Copy:         key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy key")),
		Compose:      key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "compose from here")),
		CopyValue:    key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "copy value")),
		Record:       key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "a dwk_* key's tab (Leases, Alarms, Queues)")),
		Filter:       key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter level")),
		FilterAll:    key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "load the whole level (up to 10000) for the filter")),
		ClearFilter:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear the filter (/)")),
		Reload:       key.NewBinding(key.WithKeys("r", "ctrl+r"), key.WithHelp("r", "reload")),
		Search:       key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "search values (again: back to the results)")),
		Read:         key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "read the value: page, / search")),
		Pager:        key.NewBinding(key.WithKeys("|"), key.WithHelp("|", "pipe the value to $PAGER or a command (streamed)")),
		Reader:       reader.DefaultKeys(),
		EditExternal: key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "edit value in $EDITOR (CAS)")),
		Diff:         key.NewBinding(key.WithKeys("="), key.WithHelp("=", "what changed since you looked (again: hide)")),
		PutBack:      key.NewBinding(key.WithKeys("P"), key.WithHelp("P", "put back as then (the marked keys, else this one; asks)")),
		History:      key.NewBinding(key.WithKeys("H"), key.WithHelp("H", "the key's history across restore points")),
		Marks:        widgets.DefaultMarkKeys(),
	}
}

// ReaderKeys are the value reader's keys (v).
type ReaderKeys = reader.Keys

// Model is the key-prefix tree (left) and the selected entry (right),
// with its parts: the editor, the value search and the value reader.
type Model struct {
	deps     views.Deps
	styles   themes.Styles
	keys     Keys
	input    widgets.InputKeys
	readOnly bool
	focused  bool

	root   *node
	rows   []row
	cursor int
	sel    ref // what the cursor is on, kept across reloads
	offset int // first visible tree row
	tags   int // source of generation tags

	entry  entryState
	pane   entryPane
	filter filterState
	left   []codec.Key   // keys far moves left, for the root's back stack (TakeLeft)
	jump   *jumpState    // a :goto in progress
	held   heldKeys      // keys pressed during the jump, for its target (jump.go)
	edge   edgeState     // G's and pgdn's loads past the loaded edge (edge.go)
	marks  widgets.Marks // the keys marked for a bulk action (bulk.go)

	editor editor.Model // the entry's writes: the form, E, d, the conflict screen
	search search.Model // the value search (s)
	reader reader.Model // the value reader (v) and its pipe prompt (|)

	width, height int
}

// entryPane is how the entry pane shows the selected row.
type entryPane struct {
	busy  bool                // an entry read is in flight
	off   int                 // first visible line of the entry pane
	cache *widgets.ValueCache // the entry's value lines, prepared once
	seen  *seenState          // rows looked at, for "changed since you looked" (seen.go)
}

// filterState is the level filter (/).
type filterState struct {
	on bool // the filter input has the keys
	in textinput.Model
	// level is the level the last `/` filtered: the prompt types into it
	// whatever row the cursor falls on, and esc clears it.
	level *node
	from  codec.Key // where the cursor was at `/`: a place if enter leaves it (places.go)
}

// heldKeys are the keys pressed while a jump is in flight (jump.go).
type heldKeys struct {
	keys []tea.KeyMsg
	on   *ref // the row whose entry the held keys wait for
}

// New returns the Browse view over deps.Store.
func New(deps views.Deps, styles themes.Styles) Model {
	m := Model{
		deps:     deps,
		styles:   styles,
		keys:     DefaultKeys(),
		input:    widgets.DefaultInputKeys(),
		readOnly: deps.Store.ReadOnly(),
		root:     &node{depth: -1, expanded: true},
		filter:   filterState{in: widgets.NewInput("/ ", "filter this level", styles)},
		focused:  true,
		pane:     entryPane{cache: &widgets.ValueCache{}, seen: newSeen()},

		editor: editor.New(deps, styles),
		search: search.New(deps, styles),
		reader: reader.New(deps, styles),
	}
	m.reader.KeyMap = m.keys.Reader
	// P writes to the live store, so it is on only at a point of its
	// past, whichever way the past itself is open.
	m.keys.PutBack.SetEnabled(deps.Live != nil && !deps.Live.ReadOnly())
	// The first load is tagged here, not in Init: Init's receiver is a
	// copy, and the tag counter must not go back.
	m.root.loading, m.root.gen = true, m.nextTag()
	m.rows = flatten(m.root)
	return m
}

// Init loads the first page of the top level.
func (m Model) Init() tea.Cmd {
	return loadChildren(m.deps.Store, m.deps.Session, m.root.gen, nil, 0, nil, m.pageSize(), false)
}

// SetSize sets the view's rectangle.
func (m *Model) SetSize(w, h int) {
	// A cursor on screen stays on screen when the terminal shrinks (it
	// was left below the last row until the next key).
	visible := m.cursor >= m.offset && m.cursor < m.offset+m.treeRows()
	m.width, m.height = w, h
	if visible {
		m.offset = widgets.ScrollTo(m.offset, m.cursor, m.treeRows(), len(m.rows))
	} else {
		m.offset = widgets.ClampOffset(m.offset, m.treeRows(), len(m.rows))
	}
	m.filter.in.Width = m.treeInner() - 4
	m.search.SetSize(m.entryWidth(), m.height)
	m.reader.SetSize(m.entryWidth(), m.height)
	m.reader.SetPromptWidth(m.treeInner() - 4)
	m.editor.SetSize(m.entryWidth(), m.height)
}

// Focus gives the view the keys.
func (m *Model) Focus() {
	m.focused = true
	m.editor.Focus()
	m.search.Focus()
	m.reader.Focus()
}

// Blur takes the keys away; a blurred view ignores keys.
func (m *Model) Blur() {
	m.focused = false
	m.editor.Blur()
	m.search.Blur()
	m.reader.Blur()
}

// Busy reports whether a store call of the view is in flight; the root's
// live refresh skips a round while it is.
func (m Model) Busy() bool {
	return m.pane.busy || m.editor.Busy() || anyLoading(m.root)
}

// Capturing reports whether a text input has the keys, so that the root
// passes it every key (q and the digits included). The reader is no text
// input, but for its query and its pipe prompt: the global keys (z, :,
// 1-8) work over it, and it keeps q (Keeps).
func (m Model) Capturing() bool {
	return m.filter.on || m.editor.Open() || m.searching() || m.reader.Typing()
}

// Keeps reports whether the reader, open, keeps msg from the root's
// global keys: its close keys (q goes back to the tree, not out of
// kvdeck).
func (m Model) Keeps(msg tea.KeyMsg) bool {
	return m.focused && m.reader.Reading() && !m.reader.Typing() && key.Matches(msg, m.reader.KeyMap.Close)
}

// Held is the typed text a quit would drop (views.Holder): the editor's
// edit, kept by the root in a private file on the way out.
func (m Model) Held() []views.Held { return m.editor.Held() }

// searching reports whether the value search is shown (open, not parked).
func (m Model) searching() bool { return m.search.Active() }

// Update handles a message. Keys held while a jump was in flight are
// replayed once it has landed.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	m.reader.SetRow(m.entry.row())
	m, cmd := m.update(msg)
	// The reader lays the value out again when its width or the value
	// changed (SetSize and SetRow cannot answer with a command).
	m.reader.SetRow(m.entry.row())
	cmd = tea.Batch(cmd, m.reader.Layout())
	return m.replayHeld(cmd)
}

func (m Model) update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return m.onKey(msg)
	case tea.MouseMsg:
		return m.onMouse(msg)
	case childrenLoaded:
		return m.onChildren(msg)
	case probed:
		return m.onProbed(msg)
	case levelCounted:
		return m.onCounted(msg)
	case entryLoaded:
		return m.onEntry(msg)
	case copied:
		return m, m.onCopied(msg)
	case marksRead:
		return m.onMarksRead(msg)
	case views.BulkDoneMsg:
		if m.focused {
			m.marks.Clear()
		}
		return m, nil
	}
	return m.offer(msg)
}

// onKey hands a key to what has the keys: a part's open text input or
// screen (the pipe prompt, the editor), the filter prompt, the search,
// the reader; keys held for a jump's target; else the tree.
func (m Model) onKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case !m.focused:
		return m, nil
	case m.reader.Piping():
		return m.toReader(msg)
	case m.editor.Open():
		return m.toEditor(msg)
	case m.filter.on:
		return m.handleFiltering(msg)
	case m.searching():
		return m.toSearch(msg)
	case m.reader.Reading():
		return m.toReader(msg)
	case m.holding():
		// The cursor is still on the row it had before the jump, or
		// the target's entry is not read yet: a key pressed now is
		// meant for the target, after the keys held before it.
		m.hold(msg)
		return m, nil
	}
	return m.handleBrowsing(msg)
}

// offer offers a message Browse does not own to each part, which
// ignores what it does not own.
func (m Model) offer(msg tea.Msg) (Model, tea.Cmd) {
	m, cmd := m.toEditor(msg)
	var sc, rc tea.Cmd
	m.search, sc = m.search.Update(msg)
	m.reader, rc = m.reader.Update(msg)
	return m, tea.Batch(cmd, sc, rc)
}

// toEditor hands a message to the editor, then does what it asks: read
// the row again (ctrl+r), show the store again (a write, a discarded
// conflict), go to the key a save created.
func (m Model) toEditor(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	m.editor, cmd = m.editor.Update(msg)
	ask := m.editor.TakeAsk()
	if ask.Reread {
		m.entry.stale = true
		if m.pane.busy {
			m.entry.gen = m.nextTag() // drop the answer in flight: it may predate the conflict
		}
		cmd = tea.Batch(cmd, m.wantEntry())
	}
	if ask.Refresh {
		var c tea.Cmd
		m, c = m.Refresh()
		cmd = tea.Batch(cmd, c)
	}
	if ask.Select != nil {
		m.jump = newJump(ask.Select)
		cmd = tea.Batch(cmd, m.advanceJump())
	}
	return m, cmd
}

// toSearch hands a key to the value search; a match it shows (enter) is
// a jump within Browse, and a place left (places.go).
func (m Model) toSearch(msg tea.KeyMsg) (Model, tea.Cmd) {
	m.search.SetSelected(m.selectedPrefix())
	var cmd tea.Cmd
	m.search, cmd = m.search.Update(msg)
	if k := m.search.TakeShow(); k != nil {
		from, ok := m.Selected()
		var jump tea.Cmd
		m, jump = m.Goto(k)
		m.leftPlace(from, ok)
		cmd = tea.Batch(jump, cmd)
	}
	return m, cmd
}

// toReader hands a key to the reader or its pipe prompt.
func (m Model) toReader(msg tea.KeyMsg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	m.reader, cmd = m.reader.Update(msg)
	return m, cmd
}

// Refresh re-reads what is on screen: the store changed.
func (m Model) Refresh() (Model, tea.Cmd) {
	m.root.markStale()
	m.root.markSizesStale()
	m.entry.stale = true
	out := tea.Batch(m.reloadVisible(), m.wantEntry(), m.editor.Recheck())
	return m, out
}

// Goto expands the path to key and selects it. It first reads where the
// key stands in the store (probe.go): keys pressed until it has landed
// are held for the target.
func (m Model) Goto(key codec.Key) (Model, tea.Cmd) {
	m.jump = newJump(key)
	m.jump.probing = true
	return m, probeGoto(m.deps.Store, m.deps.Session, key)
}

// ShortHelp returns the bindings for the one-line help.
func (m Model) ShortHelp() []key.Binding {
	switch {
	case m.reader.Piping():
		return m.reader.ShortHelp()
	case m.editor.Open():
		return m.editor.ShortHelp()
	case m.filter.on:
		return []key.Binding{m.input.Accept, m.keys.FilterAll, m.input.Cancel}
	case m.searching():
		return m.search.ShortHelp()
	case m.reader.Reading():
		return m.reader.ShortHelp()
	}
	return m.keys.actions().ShortHelp(m.readOnly)
}

// FullHelp returns every live binding, in columns.
func (m Model) FullHelp() [][]key.Binding {
	switch {
	case m.reader.Piping():
		return m.reader.FullHelp()
	case m.editor.Open():
		return m.editor.FullHelp()
	case m.filter.on:
		return [][]key.Binding{{m.input.Accept, m.keys.FilterAll, m.input.Cancel}}
	case m.searching():
		return m.search.FullHelp()
	case m.reader.Reading():
		return m.reader.FullHelp()
	}
	return m.keys.actions().FullHelp(m.readOnly)
}

// anyLoading reports whether a children request is in flight in the tree.
func anyLoading(n *node) bool {
	if n.loading {
		return true
	}
	for _, p := range n.pages {
		for _, k := range p.kids {
			if k.loaded && anyLoading(k) || k.loading {
				return true
			}
		}
	}
	return false
}

// nextTag returns a fresh generation tag.
func (m *Model) nextTag() int {
	m.tags++
	return m.tags
}

// Failed reports whether the tree or the entry shows a failed load. The
// root re-reads a tab that says so at its next tick that reads the store,
// though seq stood still: Refresh alone retried a
// failed level once, so a retry that failed too (a read timing out while
// the version read answers, a connection the server dropped) kept
// "✗ database unreachable" until r.
func (m Model) Failed() bool {
	if m.entry.wanted && m.entry.err != nil {
		return true
	}
	for _, r := range m.rows {
		if r.kind == rowError {
			return true
		}
	}
	return false
}
