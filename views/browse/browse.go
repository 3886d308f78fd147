// Package browse is the Browse tab: the key-prefix tree on the left, the
// selected entry on the right, with the edit and new-key form and compare-
// and-set writes.
package browse

import (
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Keys are the Browse view's key bindings.
type Keys struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Expand, Collapse, Toggle                key.Binding
	ScrollUp, ScrollDown                    key.Binding // the entry pane
	Edit, New, Delete, Copy, Compose        key.Binding
	Filter, ClearFilter, Reload             key.Binding
	FilterAll                               key.Binding // while filtering: load the whole level
	Record                                  key.Binding // a dwk_* key's coordination tab
	CopyValue                               key.Binding
	Search                                  key.Binding // search values under the selected prefix
	Read                                    key.Binding // the value reader: page and search the value
	Pager                                   key.Binding // the value, streamed, to $PAGER
	EditExternal                            key.Binding // edit the value in $EDITOR
	Diff                                    key.Binding // what changed since you looked (seen.go)
	Reader                                  ReaderKeys
	Marks                                   widgets.MarkKeys // space, ctrl+a, B (bulk.go)
}

// DefaultKeys returns the Browse view's default key bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:           key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:         key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:       key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown:     key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		Top:          key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first")),
		Bottom:       key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last (loads the level to its end)")),
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
		Reader:       DefaultReaderKeys(),
		EditExternal: key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "edit value in $EDITOR (CAS)")),
		Diff:         key.NewBinding(key.WithKeys("="), key.WithHelp("=", "what changed since you looked (again: hide)")),
		Marks:        widgets.DefaultMarkKeys(),
	}
}

// Writes are Browse's write keys, declared once: read-only mode disables
// them and says why with What; e and n open the entry form (its ctrl+s
// is the confirmation), E asks after the editor closes, d asks first.
func (k *Keys) Writes() views.WriteKeys {
	return views.WriteKeys{
		{Binding: &k.Edit, What: "edit value", Asks: views.AskForm},
		{Binding: &k.EditExternal, What: "edit value in $EDITOR", Asks: views.AskDialog},
		{Binding: &k.New, What: "new key", Asks: views.AskForm},
		{Binding: &k.Delete, What: "delete", Asks: views.AskDialog},
	}
}

// Model is the key-prefix tree (left) and the selected entry (right).
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

	entry      entryState
	entryBusy  bool                // an entry read is in flight
	entryOff   int                 // first visible line of the entry pane
	vcache     *widgets.ValueCache // the entry's value lines, prepared once
	seen       *seenState          // rows looked at, for "changed since you looked" (seen.go)
	committing bool                // a commit is in flight
	// editing: E's file is being written or its editor runs; a second E
	// meanwhile would make a second file and a second editor.
	editing bool
	// bigEditCap bounds the large values E edits (New:
	// defaultBigEditCap; external_big.go).
	bigEditCap int64

	filtering bool // the filter input has the keys
	filterIn  textinput.Model
	// filterOn is the level the last `/` filtered: the prompt types into
	// it whatever row the cursor falls on, and esc clears it.
	filterOn   *node
	filterFrom codec.Key      // where the cursor was at `/`: a place if enter leaves it (places.go)
	left       []codec.Key    // keys far moves left, for the root's back stack (TakeLeft)
	form       *entryForm     // the edit / new-key form, when open
	conflict   *conflictState // the form's save met another writer (conflict.go)
	jump       *jumpState     // a :goto in progress
	held       []tea.KeyMsg   // keys pressed during the jump, for its target (jump.go)
	heldOn     *ref           // the row whose entry the held keys wait for
	toEnd      *node          // G loads this level to its end (edge.go)
	endStay    bool           // ... for the filter: the cursor stays
	carryTo    int            // pgdn's target row past the loaded edge
	carryLvl   *node          // the level whose next page pgdn waits for
	search     *searchState   // the value search (search.go), when open
	// searchWait is each search call's deadline (0: views.ReadTimeout);
	// searchScan the rows one call examines (New: defaultSearchScan).
	searchWait time.Duration
	searchScan int
	reader     *readerState     // the value reader (reader.go), when open
	pipeIn     *textinput.Model // |'s command prompt (pager.go), when open
	marks      widgets.Marks    // the keys marked for a bulk action (bulk.go)

	width, height int
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
		filterIn: widgets.NewInput("/ ", "filter this level", styles),
		focused:  true,
		vcache:   &widgets.ValueCache{},
		seen:     newSeen(),

		searchScan: defaultSearchScan,
		bigEditCap: defaultBigEditCap,
	}
	if m.readOnly {
		m.keys.Writes().Disable()
	}
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
	// was left below the last row until the next key, issue 13 bug 2).
	visible := m.cursor >= m.offset && m.cursor < m.offset+m.treeRows()
	m.width, m.height = w, h
	if visible {
		m.offset = widgets.ScrollTo(m.offset, m.cursor, m.treeRows(), len(m.rows))
	} else {
		m.offset = widgets.ClampOffset(m.offset, m.treeRows(), len(m.rows))
	}
	m.filterIn.Width = m.treeInner() - 4
	if m.form != nil {
		m.form.SetSize(m.entryInner(), m.innerHeight())
	}
}

// Focus gives the view the keys.
func (m *Model) Focus() { m.focused = true }

// Blur takes the keys away; a blurred view ignores keys.
func (m *Model) Blur() { m.focused = false }

// Busy reports whether a store call of the view is in flight; the root's
// live refresh skips a round while it is.
func (m Model) Busy() bool {
	return m.entryBusy || m.committing || anyLoading(m.root) || m.conflict != nil && m.conflict.loading
}

// Capturing reports whether a text input has the keys, so that the root
// passes it every key (q and the digits included).
func (m Model) Capturing() bool {
	return m.filtering || m.form != nil || m.conflict != nil || m.searching() || m.reader != nil || m.pipeIn != nil
}

// searching reports whether the value search is open (not parked).
func (m Model) searching() bool { return m.search != nil && !m.search.parked }

// Update handles a message. Keys held while a jump was in flight are
// replayed once it has landed.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	m, cmd := m.update(msg)
	// The reader lays the value out again when its width or the value
	// changed (SetSize cannot answer with a command).
	cmd = tea.Batch(cmd, m.wantLayout())
	return m.replayHeld(cmd)
}

func (m Model) update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case childrenLoaded:
		return m.onChildren(msg)
	case probed:
		return m.onProbed(msg)
	case levelCounted:
		return m.onCounted(msg)
	case entryLoaded:
		return m.onEntry(msg)
	case committed:
		return m.onCommitted(msg)
	case copied:
		out := m.onCopied(msg)
		return m, out
	case marksRead:
		return m.onMarksRead(msg)
	case views.BulkDoneMsg:
		if m.focused {
			m.marks.Clear()
		}
		return m, nil
	case searched:
		return m.onSearched(msg)
	case editorFile, editorClosed, editorText, editorBig, bigSaveConfirmed:
		return m.onEditor(msg)
	case pagerClosed:
		return m.onPager(msg)
	case indexStep:
		return m.onIndexStep(msg)
	case windowRead:
		return m.onWindow(msg)
	case searchStep:
		return m.onSearchStep(msg)
	case treeParsed:
		return m.onTreeParsed(msg)
	case saveConfirmed:
		return m.onSaveConfirmed(msg)
	case discardConfirmed:
		return m.onDiscardConfirmed(msg)
	case tea.MouseMsg:
		return m.onMouse(msg)
	case tea.KeyMsg:
		if !m.focused {
			return m, nil
		}
		switch {
		case m.pipeIn != nil:
			return m.handlePipe(msg)
		case m.form != nil || m.conflict != nil:
			return m.handleForm(msg)
		case m.filtering:
			return m.handleFiltering(msg)
		case m.searching():
			return m.handleSearch(msg)
		case m.reader != nil:
			return m.handleReading(msg)
		case m.holding():
			// The cursor is still on the row it had before the jump, or
			// the target's entry is not read yet: a key pressed now is
			// meant for the target, after the keys held before it.
			m.hold(msg)
			return m, nil
		}
		return m.handleBrowsing(msg)
	}
	return m.onConflictMsg(msg)
}

// Refresh re-reads what is on screen: the store changed.
func (m Model) Refresh() (Model, tea.Cmd) {
	m.root.markStale()
	m.root.markSizesStale()
	m.entry.stale = true
	out := tea.Batch(m.reloadVisible(), m.wantEntry(), m.recheckConflict())
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
	case m.pipeIn != nil:
		return []key.Binding{m.input.Accept, m.input.Cancel}
	case m.conflict != nil:
		k := m.conflict.keys
		return []key.Binding{k.Keep, k.Discard, k.Overwrite}
	case m.form != nil:
		return m.form.ShortHelp()
	case m.filtering:
		return []key.Binding{m.input.Accept, m.keys.FilterAll, m.input.Cancel}
	case m.searching() && m.search.typing:
		return []key.Binding{m.input.Accept, m.search.keys.Scope, m.input.Cancel}
	case m.searching():
		k := m.search.keys
		return []key.Binding{k.Open, k.More, k.Again, k.Close}
	case m.reader != nil && m.reader.typing:
		return []key.Binding{m.input.Accept, m.input.Cancel}
	case m.reader != nil:
		return m.readerHelp()
	}
	k := m.keys
	return []key.Binding{k.Toggle, k.Edit, k.New, k.Delete, k.Copy, k.Filter}
}

// FullHelp returns every live binding, in columns.
func (m Model) FullHelp() [][]key.Binding {
	switch {
	case m.pipeIn != nil:
		return [][]key.Binding{{m.input.Accept, m.input.Cancel}}
	case m.conflict != nil:
		return [][]key.Binding{m.ShortHelp()}
	case m.form != nil:
		return m.form.FullHelp()
	case m.filtering:
		return [][]key.Binding{{m.input.Accept, m.keys.FilterAll, m.input.Cancel}}
	case m.searching() && m.search.typing:
		return [][]key.Binding{{m.input.Accept, m.search.keys.Scope, m.input.Cancel}}
	case m.searching():
		k := m.search.keys
		return [][]key.Binding{{k.Up, k.Down, k.Open, k.More, k.Again, k.Close}}
	case m.reader != nil:
		k := m.keys.Reader
		return [][]key.Binding{k.Bindings(), m.ShortHelp()}
	}
	k := m.keys
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Expand, k.Collapse, k.Toggle, k.ScrollUp, k.ScrollDown},
		{k.Edit, k.New, k.Delete, k.Copy, k.CopyValue, k.Compose, k.Record, k.Filter, k.ClearFilter, k.Reload, k.Search, k.Read, k.Pager, k.EditExternal, k.Diff},
		k.Marks.MarkBindings(),
	}
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
// though seq stood still (issue 22 point 9): Refresh alone retried a
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
