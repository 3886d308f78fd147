package browse

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/store"
	"kvdeck/views"
)

// Editing a value in $EDITOR (E): the value is written to a temporary
// file, the editor runs in the terminal (tea.ExecProcess suspends the
// TUI), and the edited text comes back into the entry form, which saves
// it as ctrl+s does: validated, and with a check on the stamp the value
// was read at, never blind. A refused save (not JSON, changed meanwhile)
// leaves the form open with the edited text and says why.

// editorFile: the value is in a temporary file, ready for the editor.
type editorFile struct {
	session int
	path    string
	e       store.Entry // the row as read when E was pressed
	err     error
}

// editorClosed: the editor exited.
type editorClosed struct {
	session int
	path    string
	e       store.Entry
	err     error
}

// editorText: the edited text, read back from the file (now removed).
type editorText struct {
	session int
	e       store.Entry
	text    string
	changed bool
	err     error
}

// startExternalEdit writes the selected value to a temporary file.
func (m *Model) startExternalEdit() tea.Cmd {
	if cmd := m.startEdit(); cmd != nil { // the same checks as e
		return cmd
	}
	m.form = nil
	e, session := m.entry.e, m.deps.Session
	var buf bytes.Buffer
	if json.Indent(&buf, e.Value, "", "  ") != nil {
		buf.Reset()
		buf.Write(e.Value)
	}
	text := buf.String() + "\n"
	return func() tea.Msg {
		f, err := os.CreateTemp("", "kvdeck-value-*.json")
		if err != nil {
			return editorFile{session: session, err: err}
		}
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return editorFile{session: session, path: f.Name(), e: e, err: err}
	}
}

// editorCommand is $VISUAL, else $EDITOR (words split at spaces), else vi.
func editorCommand(path string) *exec.Cmd {
	words := strings.Fields(os.Getenv("VISUAL"))
	if len(words) == 0 {
		words = strings.Fields(os.Getenv("EDITOR"))
	}
	if len(words) == 0 {
		words = []string{"vi"}
	}
	return exec.Command(words[0], append(words[1:], path)...)
}

// readEdited reads the edited file back and removes it.
func readEdited(msg editorClosed) tea.Cmd {
	return func() tea.Msg {
		b, err := os.ReadFile(msg.path)
		os.Remove(msg.path)
		if err == nil {
			err = msg.err
		}
		text := strings.TrimSpace(string(b))
		var before bytes.Buffer
		_ = json.Compact(&before, msg.e.Value)
		var after bytes.Buffer
		changed := json.Compact(&after, []byte(text)) != nil || !bytes.Equal(before.Bytes(), after.Bytes())
		return editorText{session: msg.session, e: msg.e, text: text, changed: changed, err: err}
	}
}

// onEditor drives the edit through the editor's messages.
func (m Model) onEditor(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case editorFile:
		if msg.session != m.deps.Session {
			return m, nil
		}
		if msg.err != nil {
			return m, views.Flash(views.FlashError, "cannot hand the value to the editor: %v", msg.err)
		}
		return m, tea.ExecProcess(editorCommand(msg.path), func(err error) tea.Msg {
			return editorClosed{session: msg.session, path: msg.path, e: msg.e, err: err}
		})
	case editorClosed:
		return m, readEdited(msg)
	case editorText:
		switch {
		case msg.session != m.deps.Session:
			return m, nil
		case msg.err != nil:
			return m, views.Flash(views.FlashError, "the editor failed: %v; nothing was written", msg.err)
		case !msg.changed:
			return m, views.Flash(views.FlashInfo, "the value is unchanged: nothing was written")
		}
		// Into the form, saved as ctrl+s saves: checked against the
		// stamp the value was read at; a refusal keeps the text here.
		m.form = newEditForm(m.styles, msg.e, m.deps.Now)
		m.form.SetSize(m.entryInner(), m.innerHeight())
		m.form.SetValue(m.form.valField, msg.text)
		m.form.ToTop(m.form.valField)
		out := m.save()
		return m, out
	}
	return m, nil
}
