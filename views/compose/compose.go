// Package compose is the Compose tab: an atomic commit built by hand from
// staged checks, sets and deletes, committed at once, saved to and loaded
// from a file.
package compose

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Keys are the Compose tab's key bindings.
type Keys struct {
	Up, Down, MoveUp, MoveDown        key.Binding
	AddCheck, AddSet, AddDelete, Edit key.Binding
	Fill, Remove, Clear               key.Binding
	Commit, Retry, Save, Load         key.Binding
}

// DefaultKeys returns the Compose tab's default key bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		MoveUp:    key.NewBinding(key.WithKeys("alt+up"), key.WithHelp("alt+↑", "move op up")),
		MoveDown:  key.NewBinding(key.WithKeys("alt+down"), key.WithHelp("alt+↓", "move op down")),
		AddCheck:  key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "add a check")),
		AddSet:    key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new set op")),
		AddDelete: key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "add a delete op")),
		Edit:      key.NewBinding(key.WithKeys("enter", "e"), key.WithHelp("enter/e", "edit op")),
		Fill:      key.NewBinding(key.WithKeys("V"), key.WithHelp("V", "check: expect the stored stamp (version)")),
		Remove:    key.NewBinding(key.WithKeys("backspace", "delete"), key.WithHelp("backspace", "remove op")),
		Clear:     key.NewBinding(key.WithKeys("X"), key.WithHelp("X", "clear all")),
		Commit:    key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "commit (confirm)")),
		Retry:     key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh stale checks & retry"), key.WithDisabled()),
		Save:      key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "save as atomic JSON")),
		Load:      key.NewBinding(key.WithKeys("I"), key.WithHelp("I", "import (load) atomic JSON")),
	}
}

// actions is the Compose tab's table of keys. ctrl+s reads what the
// mutations would change and asks, showing it (or says nothing would
// change); r refreshes the stale checks of a failed commit and asks
// again.
func (k *Keys) actions() views.Actions[Model] {
	add := func(kind opKind) func(*Model, tea.KeyMsg) tea.Cmd {
		return func(m *Model, _ tea.KeyMsg) tea.Cmd { m.openEditor(stagedOp{kind: kind}, -1); return nil }
	}
	return views.Actions[Model]{
		{Binding: &k.Up, Do: views.Run((*Model).up)},
		{Binding: &k.Down, Do: views.Run((*Model).down)},
		{Binding: &k.MoveUp, Do: func(m *Model, _ tea.KeyMsg) tea.Cmd { m.move(-1); return nil }},
		{Binding: &k.MoveDown, Do: func(m *Model, _ tea.KeyMsg) tea.Cmd { m.move(1); return nil }},
		{Binding: &k.Remove, Do: views.Run((*Model).remove)},
		{Binding: &k.Clear, Do: views.Run((*Model).askClear)},
		{Binding: &k.AddCheck, Do: add(opCheck), Col: 1, Short: 1},
		{Binding: &k.AddSet, Do: add(opSet), Col: 1, Short: 2},
		{Binding: &k.AddDelete, Do: add(opDel), Col: 1, Short: 3},
		{Binding: &k.Edit, Do: views.Run((*Model).editSelected), Col: 1, Short: 4},
		{Binding: &k.Fill, Do: views.Run((*Model).fillSelected), Off: Model.fillOff, Col: 1},
		{Binding: &k.Commit, What: "commit the composition", Asks: views.AskDialog, Do: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.askCommit() }, Col: 2, Short: 5},
		{Binding: &k.Retry, What: "refresh stale checks and commit again", Asks: views.AskDialog, Do: views.Run((*Model).retry), Col: 2, Short: 6},
		{Binding: &k.Save, Do: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.openPrompt("save", "save to  ") }, Col: 2, Short: 7},
		{Binding: &k.Load, Do: func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.openPrompt("load", "load from  ") }, Col: 2, Short: 8},
	}
}

// composeOutcome is the last commit's result, shown under the list.
type composeOutcome struct {
	res     store.CommitResult
	err     error
	checks  []store.Check // what was committed
	checkOp []int         // the op each check came from
}

// Model builds an atomic commit by hand: staged checks, sets and
// deletes, their budget, the commit and, when it fails, every check as
// expected vs actual with the stale ones refreshed on request.
type Model struct {
	deps     views.Deps
	styles   themes.Styles
	keys     Keys
	input    widgets.InputKeys
	readOnly bool
	focused  bool

	ops     []stagedOp
	cursor  int
	editor  *opEditor
	outcome *composeOutcome
	busy    bool // a commit, read or file operation is in flight
	tags    int

	prompt    textinput.Model
	prompting string // "save" or "load" while the path prompt is open
	path      string // the last file saved or loaded

	width, height int
}

// New returns an empty composition over deps.Store.
func New(deps views.Deps, styles themes.Styles) Model {
	m := Model{
		deps: deps, styles: styles, keys: DefaultKeys(), input: widgets.DefaultInputKeys(),
		readOnly: deps.Store.ReadOnly(), path: "compose.json",
		prompt: widgets.NewInput("", "", styles),
	}
	return m
}

// Init does nothing: a composition starts empty.
func (m Model) Init() tea.Cmd { return nil }

// SetSize sets the view's rectangle.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.prompt.Width = m.listInner() - 14
	if m.editor != nil {
		m.editor.SetSize(m.sideInner(), m.height-2)
	}
}

// Focus gives the view the keys.
func (m *Model) Focus() { m.focused = true }

// Blur takes the keys away.
func (m *Model) Blur() { m.focused = false }

// Busy reports whether a store call of the view is in flight.
func (m Model) Busy() bool { return m.busy }

// Capturing reports whether the editor or the path prompt has the keys.
func (m Model) Capturing() bool { return m.editor != nil || m.prompting != "" }

// Staged is how many operations are staged and not committed: quitting
// would lose them (none once the composition committed).
func (m Model) Staged() int {
	if o := m.outcome; o != nil && o.err == nil && o.res.OK {
		return 0
	}
	return len(m.ops)
}

// Refresh has nothing to re-read: the composition is the user's, and the
// last outcome stays as it was when committed.
func (m Model) Refresh() (Model, tea.Cmd) { return m, nil }

// Update handles a message.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case composeCleared:
		if msg.session == m.deps.Session {
			m.ops, m.cursor, m.outcome = nil, 0, nil
			m.keys.Retry.SetEnabled(false)
		}
		return m, nil
	case views.ComposeMsg:
		return m.stageFrom(msg)
	case composeCommitted:
		return m.onCommitted(msg)
	case stampsRead:
		return m.onStamps(msg)
	case currentRead:
		return m.onCurrent(msg)
	case compositionFile:
		return m.onFile(msg)
	case tea.MouseMsg:
		if x, y, ok := widgets.LeftClick(msg); ok && m.focused {
			return m.onClick(x, y), nil
		}
	case tea.KeyMsg:
		if !m.focused {
			return m, nil
		}
		switch {
		case m.editor != nil:
			return m.handleEditor(msg)
		case m.prompting != "":
			return m.handlePrompt(msg)
		}
		return m.keys.actions().Handle(m, msg, m.readOnly) // the operations list
	}
	return m, nil
}

// ShortHelp returns the bindings for the one-line help.
func (m Model) ShortHelp() []key.Binding {
	switch {
	case m.editor != nil:
		return m.editor.ShortHelp()
	case m.prompting != "":
		return []key.Binding{m.input.Accept, m.input.Cancel}
	}
	return m.keys.actions().ShortHelp(m.readOnly)
}

// FullHelp returns every live binding, in columns.
func (m Model) FullHelp() [][]key.Binding {
	switch {
	case m.editor != nil:
		return m.editor.FullHelp()
	case m.prompting != "":
		return [][]key.Binding{{m.input.Accept, m.input.Cancel}}
	}
	return m.keys.actions().FullHelp(m.readOnly)
}

// nextTag returns a fresh generation tag.
func (m *Model) nextTag() int {
	m.tags++
	return m.tags
}
