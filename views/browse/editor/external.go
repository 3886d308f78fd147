package editor

import (
	"bytes"
	"context"
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
	"kvdeck/views/browse/entry"
	"kvdeck/views/widgets"
)

// Editing a value in $EDITOR (E) is one path, whatever the value's size:
// a command writes the whole value to a temporary file (indented a chunk
// at a time, entry.WriteIndented: its indented copy is never held), the
// editor runs in the terminal (tea.Exec suspends the TUI), and a command
// reads the edit back (at most a bound, then the file goes) and checks
// it: Update never handles more of it than the form takes. The save is
// checked against the stamp the value was read at, never blind, and asks
// first; an edit that changes nothing writes nothing.
//
// Where the edit lands is the one thing the value's size decides. A value
// the entry form takes (widgets.ValueCap) comes back into the form, and
// the dialog shows what changes (old → new); y saves it as ctrl+s does, a
// refused save (not JSON, changed meanwhile) or a cancelled one leaves
// the form open with the edited text and says why. A larger value never
// enters the form or Update: the dialog names the sizes, and y sets it,
// keeping the remaining time to live.

// Bounds of E: editedReadCap is what it reads back of a value the form
// takes (an indented 64 KiB value takes more than 64 KiB of text, but
// not 16 times as much: a file over it is refused by its size alone);
// defaultBigCap, what it hands to the editor and reads back of a larger
// one (New gives it to Model.BigCap; a test sets its own). Past it, E
// says so and offers |.
const (
	editedReadCap       = 16 * widgets.ValueCap
	defaultBigCap int64 = 64 << 20
)

// FileReady: the value is in a temporary file (Path), ready for the
// editor; Err says why it is not. Closed is the message the editor's exit
// answers with (a test acts as the editor with it).
type FileReady struct {
	Path    string
	Err     error
	session int
	e       store.Entry // the row as read when E was pressed (whole)
	big     bool        // a value over the form's cap: it never enters the form
}

// Closed is the answer of the editor run on the file, which exited with
// err.
func (f FileReady) Closed(err error) tea.Msg {
	return editorClosed{session: f.session, path: f.Path, e: f.e, err: err, big: f.big}
}

// editorClosed: the editor exited.
type editorClosed struct {
	session int
	path    string
	e       store.Entry
	err     error
	big     bool
}

// edited: the edit, read back from the file (now removed) and checked.
type edited struct {
	session int
	e       store.Entry
	big     bool
	text    string // for the form: the edited text (indented when it is JSON)
	value   []byte // over the form's cap: the edited value, compacted JSON
	size    int64  // the edit's size when it is over its bound (tooBig)
	tooBig  bool
	err     error
}

// External hands the value of row to $EDITOR (E): the file is written
// once; E again before the editor has closed only says so.
func (m *Model) External(row entry.Row) tea.Cmd {
	if m.launching {
		return views.Flash(views.FlashInfo, "the value is already on its way to the editor")
	}
	big := row.Size > widgets.ValueCap
	if big && row.Size > m.BigCap {
		return views.Flash(views.FlashError, "the value is %s; E edits values up to %s (the edit is read back whole): | pipes it to $PAGER or a command (| cat > file), and kvdeck set writes it back",
			widgets.BytesText(row.Size), widgets.BytesText(m.BigCap))
	}
	m.launching = true
	return writeFile(m.deps, row, big)
}

// writeFile writes the whole value of row to a file for the editor, in
// a command: a cut value is read whole first.
func writeFile(deps views.Deps, row entry.Row, big bool) tea.Cmd {
	e, session, edits, src, cut := row.E, deps.Session, deps.Edits, deps.Store, row.Cut
	return func() tea.Msg {
		if cut { // the pane holds only the head: the edit starts from the whole
			ctx, cancel := context.WithTimeout(context.Background(), views.ReadTimeout)
			whole, err := entry.ReadWhole(ctx, src, e.Raw, e.Ver)
			if cancel(); err != nil {
				return FileReady{session: session, Err: err, big: big}
			}
			e = whole
		}
		f, err := edits.CreateTemp("value-*.json")
		if err != nil {
			return FileReady{session: session, Err: err, big: big}
		}
		err = entry.WriteIndented(f, e.Value, e.ValueValid())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return FileReady{session: session, Path: f.Name(), e: e, Err: err, big: big}
	}
}

// editorCommand is $VISUAL, else $EDITOR, else vi, run on path as git
// runs its editor: the value is shell text (editsession.EditorCommand).
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

// onFile runs the editor on the file written.
func (m Model) onFile(msg FileReady) (Model, tea.Cmd) {
	if msg.session != m.deps.Session {
		return m, nil
	}
	if msg.Err != nil {
		m.launching = false
		return m, views.Flash(views.FlashError, "cannot hand the value to the editor: %v", msg.Err)
	}
	return m, tea.Exec(m.deps.Edits.Command(editorCommand(msg.Path)), msg.Closed)
}

// onClosed reads the edit back: E may edit again.
func (m Model) onClosed(msg editorClosed) (Model, tea.Cmd) {
	m.launching = false
	limit := int64(editedReadCap)
	if msg.big {
		limit = m.BigCap
	}
	return m, readBack(msg, limit)
}

// readBack reads the edited file back (at most limit bytes) and removes
// it. Everything that costs as much as the value happens here, in the
// command: the read, the compaction that measures it, and for a value
// the form takes the size check against its cap (widgets.ValueCap), so
// that Update only ever handles a value the form takes (a 20 MB edit
// froze the TUI for 30 s when the form was built in Update).
func readBack(msg editorClosed, limit int64) tea.Cmd {
	return func() tea.Msg {
		out := edited{session: msg.session, e: msg.e, big: msg.big}
		b, size, err := readCapped(msg.path, limit)
		os.Remove(msg.path)
		switch {
		case msg.err != nil:
			out.err = msg.err
		case err != nil:
			out.err = err
		case size > limit:
			out.size, out.tooBig = size, true
		case msg.big:
			out.value, out.err = compactValue(b)
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

// compactValue is an edit over the form's cap as it is stored: compacted
// JSON (a value that is not JSON is refused here, by name).
func compactValue(b []byte) ([]byte, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, bytes.TrimSpace(b)); err != nil {
		return nil, err
	}
	if _, err := codec.NormalizeJSON(compact.Bytes()); err != nil {
		return nil, err
	}
	return compact.Bytes(), nil
}

// onEdited takes the edit back: into the form, or, over the form's cap,
// straight to the save's dialog.
func (m Model) onEdited(msg edited) (Model, tea.Cmd) {
	switch {
	case msg.session != m.deps.Session:
		return m, nil
	case msg.big:
		return m, m.askBigSave(msg)
	case msg.err != nil:
		return m, views.Flash(views.FlashError, "the editor failed: %v; nothing was written", msg.err)
	case msg.tooBig:
		return m, views.Flash(views.FlashError, "the edited value is %s; the TUI edits values up to %s, so nothing was written (kvdeck set handles it whole)",
			widgets.BytesText(msg.size), widgets.BytesText(widgets.ValueCap))
	}
	// Into the form, with the edited text: a refused or cancelled save
	// keeps the text there. The save itself asks first, showing old →
	// new, and is checked against the stamp the value was read at; an
	// edit that changes nothing writes nothing.
	m.openForm(newEditForm(m.styles, msg.e, m.deps.Now))
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
	return m, m.askSave(req)
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
	return m, m.save()
}

// bigSaveConfirmed answers the save dialog of a large value's edit.
type bigSaveConfirmed struct {
	session int
	e       store.Entry
	value   []byte
}

// askBigSave asks before a large value's edit is saved, naming the sizes.
func (m Model) askBigSave(msg edited) tea.Cmd {
	key := codec.Format(msg.e.Key)
	switch {
	case msg.err != nil:
		return views.Flash(views.FlashError, "the edited value of %s is not saved: %v", key, msg.err)
	case msg.tooBig:
		return views.Flash(views.FlashError, "the edited value is %s; E reads back at most %s, so nothing was written (kvdeck set handles it whole)",
			widgets.BytesText(msg.size), widgets.BytesText(m.BigCap))
	}
	var old bytes.Buffer
	if json.Compact(&old, msg.e.Value) == nil && bytes.Equal(old.Bytes(), msg.value) {
		return nothingChanged(msg.e.Key)
	}
	guard := "Saved only if the key is still at stamp " + msg.e.Versionstamp() + ", keeping its remaining time to live; if another writer changed it meanwhile, nothing is written."
	session, e, value := m.deps.Session, msg.e, msg.value
	return views.Confirm("Save the edited value?", "save", func() tea.Msg { return bigSaveConfirmed{session: session, e: e, value: value} },
		"Writes "+key+" as edited in the editor: "+widgets.BytesText(int64(len(msg.e.Value)))+" → "+widgets.BytesText(int64(len(value)))+" (too large to show the change here).",
		guard)
}

// onBigSaveConfirmed saves a large value's edit, the TTL computed now.
func (m Model) onBigSaveConfirmed(msg bigSaveConfirmed) (Model, tea.Cmd) {
	if msg.session != m.deps.Session {
		return m, nil
	}
	now := m.deps.Now()
	set := store.Mutation{Type: store.MutationSet, Key: msg.e.Key, Value: msg.value}
	if msg.e.ExpiresAt != nil {
		left := widgets.MsUntil(*msg.e.ExpiresAt, now)
		if left <= 0 {
			return m, views.Flash(views.FlashError, "the row's time to live ran out while it was edited; nothing was written (kvdeck set handles it)")
		}
		set.ExpireIn = &left
	}
	m.committing = true
	return m, commit(m.deps.Store, m.deps.Session, m.nextTag(), opEdit, store.Check{Key: msg.e.Key, Versionstamp: msg.e.Versionstamp()}, set)
}
