package browse

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/editsession"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Editing a value in $EDITOR (E): the value is written to a temporary
// file, the editor runs in the terminal (tea.ExecProcess suspends the
// TUI), and the edited text comes back into the entry form; a dialog
// shows what changes (old → new) and, on y, it is saved as ctrl+s saves:
// validated, and with a check on the stamp the value was read at, never
// blind. An edit that changes nothing writes nothing. A refused save (not
// JSON, changed meanwhile) or a cancelled one leaves the form open with
// the edited text and says why.

// editorFile: the value is in a temporary file, ready for the editor.
type editorFile struct {
	session int
	path    string
	e       store.Entry // the row as read when E was pressed
	err     error
	big     bool // a value over the form's cap (external_big.go)
}

// editorClosed: the editor exited.
type editorClosed struct {
	session int
	path    string
	e       store.Entry
	err     error
	big     bool
}

// editorText: the edited text, read back from the file (now removed).
// A value over the form's cap (tooBig) carries no text: its size is all
// the UI learns of it.
type editorText struct {
	session int
	e       store.Entry
	text    string
	size    int64 // bytes of the edited value (compacted when it is JSON)
	tooBig  bool
	err     error
}

// editedReadCap bounds what E reads of the edited file at all: an
// indented 64 KiB value takes more than 64 KiB of text, but not 16 times
// as much; a file over it is refused by its size alone.
const editedReadCap = 16 * widgets.ValueCap

// startExternalEdit writes the selected value to a temporary file (once:
// E again before the editor has closed only says so).
func (m *Model) startExternalEdit() tea.Cmd {
	if m.editing {
		return views.Flash(views.FlashInfo, "the value is already on its way to the editor")
	}
	if n := m.selected(); n != nil && n.kind == nodePart && n.isKey && m.entry.loaded && m.entry.found && m.entry.size > widgets.ValueCap {
		m.editing = m.entry.size <= m.bigEditCap // else it only says why not
		return m.startBigEdit()
	}
	if cmd := m.startEdit(); cmd != nil { // the same checks as e
		return cmd
	}
	m.editing = true
	m.form = nil
	e, session, edits := m.entry.e, m.deps.Session, m.deps.Edits
	var buf bytes.Buffer
	if json.Indent(&buf, e.Value, "", "  ") != nil {
		buf.Reset()
		buf.Write(e.Value)
	}
	text := buf.String() + "\n"
	return func() tea.Msg {
		f, err := edits.CreateTemp("value-*.json")
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

// editorCommand is $VISUAL, else $EDITOR, else vi, run on path as git
// runs its editor: the value is shell text (issue 25 point 14; see
// editsession.EditorCommand).
func editorCommand(path string) *exec.Cmd {
	value := strings.TrimSpace(os.Getenv("VISUAL"))
	if value == "" {
		value = strings.TrimSpace(os.Getenv("EDITOR"))
	}
	if value == "" {
		value = "vi"
	}
	return editsession.EditorCommand(value, path)
}

// readEdited reads the edited file back and removes it. Everything that
// costs as much as the value happens here, in the command: the read (at
// most editedReadCap bytes), the size check against the form's cap
// (widgets.ValueCap, as e) and the compaction that measures it, so that
// Update only ever handles a value the form takes (issue 25 point 3: a
// 20 MB edit froze the TUI for 30 s, 100 MB for minutes).
func readEdited(msg editorClosed) tea.Cmd {
	return func() tea.Msg {
		out := editorText{session: msg.session, e: msg.e}
		b, size, err := readCapped(msg.path, editedReadCap)
		os.Remove(msg.path)
		switch {
		case msg.err != nil:
			out.err = msg.err
		case err != nil:
			out.err = err
		case size > editedReadCap:
			out.size, out.tooBig = size, true
		default:
			out.text, out.size = editedText(bytes.TrimSpace(b))
			out.tooBig = out.size > widgets.ValueCap
			if out.tooBig {
				out.text = ""
			}
		}
		return out
	}
}

// readCapped reads at most limit bytes of the file at path and returns
// them with the file's size (limit+1 when it grew past limit meanwhile).
func readCapped(path string, limit int64) ([]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if st.Size() > limit {
		return nil, st.Size(), nil
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	return b, max(int64(len(b)), st.Size()), err
}

// editedText is the text the form gets and the value's size: valid JSON
// is measured compacted (what is stored) and handed over indented, as e
// shows it; other text (the form will say why it is refused) as it is.
func editedText(b []byte) (string, int64) {
	var compact bytes.Buffer
	if json.Compact(&compact, b) != nil {
		return string(b), int64(len(b))
	}
	if compact.Len() > widgets.ValueCap {
		return "", int64(compact.Len())
	}
	var buf bytes.Buffer
	if json.Indent(&buf, compact.Bytes(), "", "  ") != nil {
		return string(b), int64(compact.Len())
	}
	return buf.String(), int64(compact.Len())
}

// onEditor drives the edit through the editor's messages.
func (m Model) onEditor(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case editorFile:
		if msg.session != m.deps.Session {
			return m, nil
		}
		if msg.err != nil {
			m.editing = false
			return m, views.Flash(views.FlashError, "cannot hand the value to the editor: %v", msg.err)
		}
		return m, tea.Exec(m.deps.Edits.Command(editorCommand(msg.path)), func(err error) tea.Msg {
			return editorClosed{session: msg.session, path: msg.path, e: msg.e, err: err, big: msg.big}
		})
	case editorClosed:
		m.editing = false
		if msg.big {
			return m, readEditedBig(msg, m.bigEditCap)
		}
		return m, readEdited(msg)
	case editorBig:
		return m.onEditorBig(msg)
	case bigSaveConfirmed:
		return m.onBigSaveConfirmed(msg)
	case editorText:
		switch {
		case msg.session != m.deps.Session:
			return m, nil
		case msg.err != nil:
			return m, views.Flash(views.FlashError, "the editor failed: %v; nothing was written", msg.err)
		case msg.tooBig:
			return m, views.Flash(views.FlashError, "the edited value is %s; the TUI edits values up to %s, so nothing was written (kvdeck set handles it whole)",
				widgets.BytesText(msg.size), widgets.BytesText(widgets.ValueCap))
		}
		// Into the form, with the edited text: a refused or cancelled
		// save keeps the text there. The save itself asks first, showing
		// old → new, and is checked against the stamp the value was read
		// at; an edit that changes nothing writes nothing.
		m.form = newEditForm(m.styles, msg.e, m.deps.Now)
		m.form.SetSize(m.entryInner(), m.innerHeight())
		m.form.SetValue(m.form.valField, msg.text)
		m.form.ToTop(m.form.valField)
		req, err := m.form.Request(m.deps.Now())
		switch {
		case err != nil:
			m.form.Err = err.Error()
			return m, nil
		case m.form.unchanged(req):
			m.form = nil
			return m, nothingChanged(msg.e.Key)
		}
		out := m.askSave(req)
		return m, out
	}
	return m, nil
}

// saveConfirmed answers the save dialog of an edit made in $EDITOR.
type saveConfirmed struct{ session, tag int }

// askSave asks before the edited value is saved, naming the key, the
// check and what changes (old → new).
func (m *Model) askSave(req formRequest) tea.Cmd {
	tag, session := m.nextTag(), m.deps.Session
	m.form.asked = tag
	guard := "Saved only if the key is still at stamp " + req.check.Versionstamp + "; if another writer changed it meanwhile, nothing is written."
	if req.check.Versionstamp == "" {
		guard = "Saved only if the key is still absent or expired; if another writer wrote it meanwhile, nothing is written."
	}
	lines := append([]string{"Writes " + codec.Format(req.mut.Key) + " as edited in the editor:"}, widgets.ChangeLines(m.form.orig, &req.after)...)
	lines = append(lines, guard, "n keeps the edited text in the form (ctrl+s saves it, esc drops it).")
	return views.Confirm("Save the edited value?", "save", func() tea.Msg { return saveConfirmed{session: session, tag: tag} }, lines...)
}

// onSaveConfirmed saves the form the dialog was asked for, as ctrl+s
// does (the check and the nothing-changed rule apply at this instant).
func (m Model) onSaveConfirmed(msg saveConfirmed) (Model, tea.Cmd) {
	if msg.session != m.deps.Session || m.form == nil || m.form.asked != msg.tag {
		return m, nil
	}
	m.form.asked = 0
	out := m.save()
	return m, out
}
