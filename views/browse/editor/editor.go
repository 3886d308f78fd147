// Package editor is Browse's entry editor: every write Browse makes to a
// row. The form edits a value or a new key (e, n) and saves it under a
// check on the stamp the user saw; E edits the value in $EDITOR
// (external.go); d deletes the row, asked first; a save that meets
// another writer opens the conflict screen (theirs against yours,
// conflict.go); esc on an edit asks before it drops it (discard.go).
// Browse checks that the selection can be written and hands the row
// over; what the editor asks of Browse in turn (read the row again, show
// the store again, go to a new key) it says through TakeAsk.
package editor

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/browse/entry"
	"kvdeck/views/widgets"
)

// Model is the entry form, the conflict screen and E, with the commits
// they make.
type Model struct {
	// BigCap bounds the values E edits over the form's cap (New:
	// defaultBigCap): what it hands to the editor and reads back.
	BigCap int64

	deps    views.Deps
	styles  themes.Styles
	focused bool
	// width, height: the entry pane's rectangle, the editor's when open.
	width, height int
	tags          int            // source of the editor's tags
	form          *entryForm     // the edit / new-key form, when open
	conflict      *conflictState // the form's save met another writer (conflict.go)
	committing    bool           // a commit is in flight
	// launching: E's file is being written or its editor runs; a second
	// E meanwhile would make a second file and a second editor.
	launching bool
	ask       Ask // what the last message asks of Browse (TakeAsk)
}

// Ask is what the editor asks of Browse, which holds the tree and the
// entry read, after a message.
type Ask struct {
	// Reread: read the selected row again now (ctrl+r), dropping a read
	// in flight, which may predate the conflict.
	Reread bool
	// Refresh: show the store again (a write changed it, or a discarded
	// conflict compared with it).
	Refresh bool
	// Select is a new key saved: go to it.
	Select codec.Key
}

// New returns the editor over deps.Store, nothing open.
func New(deps views.Deps, styles themes.Styles) Model {
	return Model{BigCap: defaultBigCap, deps: deps, styles: styles, focused: true}
}

// SetSize sets the entry pane's rectangle, the editor's when it is open.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	if m.form != nil {
		m.form.SetSize(m.inner(), m.innerHeight())
	}
}

// Focus gives the editor the keys.
func (m *Model) Focus() { m.focused = true }

// Blur takes the keys away; a blurred editor ignores keys.
func (m *Model) Blur() { m.focused = false }

// Open reports whether the form or the conflict screen is open: the
// editor has the keys.
func (m Model) Open() bool { return m.form != nil || m.conflict != nil }

// Editing reports whether the form is open.
func (m Model) Editing() bool { return m.form != nil }

// Conflicting reports whether the conflict screen is open.
func (m Model) Conflicting() bool { return m.conflict != nil }

// Launching reports whether E's file is being written or its editor runs.
func (m Model) Launching() bool { return m.launching }

// Busy reports whether a store call of the editor is in flight: a commit,
// or the read of theirs on the conflict screen.
func (m Model) Busy() bool { return m.committing || m.conflict != nil && m.conflict.loading }

// Text is the form's value as typed ("" when no form is open).
func (m Model) Text() string {
	if m.form == nil {
		return ""
	}
	return m.form.Value(m.form.valField)
}

// SetText puts text in the open form's value field, as if typed.
func (m *Model) SetText(text string) {
	if m.form != nil {
		m.form.SetValue(m.form.valField, text)
	}
}

// Err is the form's error line ("" when none or no form is open).
func (m Model) Err() string {
	if m.form == nil {
		return ""
	}
	return m.form.Err
}

// Reloadable reports whether ctrl+r reloads the stored row into the form
// (a save met another writer).
func (m Model) Reloadable() bool { return m.form != nil && m.form.reload.Enabled() }

// TakeAsk returns what the editor asks of Browse and forgets it.
func (m *Model) TakeAsk() Ask {
	a := m.ask
	m.ask = Ask{}
	return a
}

// nextTag returns a fresh tag.
func (m *Model) nextTag() int {
	m.tags++
	return m.tags
}

// The inside of the entry pane (its box has a border and padding).
func (m Model) inner() int       { return m.width - m.styles.Pane.GetHorizontalFrameSize() }
func (m Model) innerHeight() int { return m.height - m.styles.Pane.GetVerticalFrameSize() }

// openForm shows f, laid out in the pane.
func (m *Model) openForm(f *entryForm) {
	m.form = f
	m.form.SetSize(m.inner(), m.innerHeight())
}

// Edit opens the form on e, a loaded row whose value the form takes; the
// save will be checked against the stamp shown now.
func (m *Model) Edit(e store.Entry) { m.openForm(newEditForm(m.styles, e, m.deps.Now)) }

// NewKey opens the form for a new key under prefix.
func (m *Model) NewKey(prefix codec.Key) { m.openForm(newKeyForm(m.styles, m.deps.Now, prefix)) }

// Reloaded takes the selected row read again: after ctrl+r, the form
// loads it.
func (m *Model) Reloaded(row entry.Row) {
	if m.form != nil && m.form.reloading {
		m.form.reloaded(row, m.deps.Now())
	}
}

// Update handles a message: keys while the form or the conflict screen is
// open, and the answers of the editor's commands; it ignores every other
// message.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch {
		case !m.focused:
		case m.conflict != nil:
			return m.handleConflict(msg) // the form's save met another writer
		case m.form != nil:
			return m.handleForm(msg)
		}
	case committed:
		return m.onCommitted(msg)
	case FileReady:
		return m.onFile(msg)
	case editorClosed:
		return m.onClosed(msg)
	case edited:
		return m.onEdited(msg)
	case saveConfirmed:
		return m.onSaveConfirmed(msg)
	case bigSaveConfirmed:
		return m.onBigSaveConfirmed(msg)
	case discardConfirmed:
		return m.onDiscardConfirmed(msg)
	case theirsRead:
		return m.onTheirs(msg)
	case overwriteConfirmed:
		return m.onOverwrite(msg)
	}
	return m, nil
}

// handleForm handles keys while the entry form is open.
func (m Model) handleForm(msg tea.KeyMsg) (Model, tea.Cmd) {
	f := m.form
	if key.Matches(msg, f.reload) {
		f.setState(false, true)
		f.Notice = ""
		m.ask.Reread = true
		return m, nil
	}
	if key.Matches(msg, f.swap) && f.alt != nil && !f.saving && !f.reloading {
		f.swapTexts()
		return m, nil
	}
	act, cmd := f.Handle(msg)
	switch act {
	case widgets.FormCancel:
		if f.unsaved() {
			return m, m.askDiscard()
		}
		m.form = nil
		return m, nil
	case widgets.FormSubmit:
		return m, m.save()
	}
	return m, cmd
}

// View is the entry pane while the editor is open: the conflict screen,
// or the form.
func (m Model) View() string {
	if m.conflict != nil {
		return m.conflictView(m.width, m.height)
	}
	if m.form != nil {
		return widgets.Pane(m.styles.PaneFocused, m.form.View(), m.width, m.height)
	}
	return ""
}

// ShortHelp returns the main keys of the conflict screen or the form.
func (m Model) ShortHelp() []key.Binding {
	if c := m.conflict; c != nil {
		return []key.Binding{c.keys.Keep, c.keys.Discard, c.keys.Overwrite}
	}
	if m.form != nil {
		return m.form.ShortHelp()
	}
	return nil
}

// FullHelp returns every key of the conflict screen or the form.
func (m Model) FullHelp() [][]key.Binding {
	if m.conflict == nil && m.form != nil {
		return m.form.FullHelp()
	}
	return [][]key.Binding{m.ShortHelp()}
}
