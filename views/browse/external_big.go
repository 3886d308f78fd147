package browse

import (
	"bytes"
	"context"
	"encoding/json"
	"os"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/browse/entry"
	"kvdeck/views/widgets"
)

// E on a value over the entry form's 64 KiB (issue 22 point 7: it was
// refused): the whole value goes to $EDITOR, and the edited text never
// enters the form or Update: the command reads it back, compacts and
// checks it, and the save dialog names the sizes; the save is the form's
// (a set checked against the stamp the value was read at, keeping the
// remaining time to live), made when y is pressed.

// defaultBigEditCap bounds what E reads back of an edited large value,
// and the value E hands to the editor at all: past it, E says so and
// offers |. New gives it to the model (Model.bigEditCap); a test sets its
// own.
const defaultBigEditCap int64 = 64 << 20

// editorBig: a large value's edit, read back and compacted.
type editorBig struct {
	session int
	e       store.Entry
	value   []byte // compacted JSON
	size    int64  // the file's size when over the cap it was read with
	err     error
}

// bigSaveConfirmed answers the save dialog of a large value's edit.
type bigSaveConfirmed struct {
	session int
	e       store.Entry
	value   []byte
}

// startBigEdit writes the whole value to a file for the editor, indented
// a chunk at a time (entry.WriteIndented, as | streams it, but unsanitized: the
// file is the value's text) in the command: the indented copy of the
// whole value is never held (a 60 MB value took ~100 MB more).
func (m *Model) startBigEdit() tea.Cmd {
	e, session, edits, src, cut := m.entry.e, m.deps.Session, m.deps.Edits, m.deps.Store, m.entry.cut
	if size := m.entry.size; size > m.bigEditCap {
		return views.Flash(views.FlashError, "the value is %s; E edits values up to %s (the edit is read back whole): | pipes it to $PAGER or a command (| cat > file), and kvdeck set writes it back",
			widgets.BytesText(size), widgets.BytesText(m.bigEditCap))
	}
	return func() tea.Msg {
		if cut { // the pane holds only the head: the edit starts from the whole
			ctx, cancel := context.WithTimeout(context.Background(), views.ReadTimeout)
			whole, err := entry.ReadWhole(ctx, src, e.Raw, e.Ver)
			if cancel(); err != nil {
				return editorFile{session: session, err: err, big: true}
			}
			e = whole
		}
		f, err := edits.CreateTemp("value-*.json")
		if err != nil {
			return editorFile{session: session, err: err, big: true}
		}
		err = entry.WriteIndented(f, e.Value, e.ValueValid())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return editorFile{session: session, path: f.Name(), e: e, err: err, big: true}
	}
}

// readEditedBig reads a large value's edit back (up to limit bytes),
// removes the file, and compacts it (a value that is not JSON is refused
// here, by name).
func readEditedBig(msg editorClosed, limit int64) tea.Cmd {
	return func() tea.Msg {
		out := editorBig{session: msg.session, e: msg.e}
		b, size, err := readCapped(msg.path, limit)
		os.Remove(msg.path)
		switch {
		case msg.err != nil:
			out.err = msg.err
		case err != nil:
			out.err = err
		case size > limit:
			out.size = size
		default:
			var compact bytes.Buffer
			if err := json.Compact(&compact, bytes.TrimSpace(b)); err != nil {
				out.err = err
				break
			}
			if _, err := codec.NormalizeJSON(compact.Bytes()); err != nil {
				out.err = err
				break
			}
			out.value = compact.Bytes()
		}
		return out
	}
}

// onEditorBig asks before a large value's edit is saved.
func (m Model) onEditorBig(msg editorBig) (Model, tea.Cmd) {
	if msg.session != m.deps.Session {
		return m, nil
	}
	key := codec.Format(msg.e.Key)
	switch {
	case msg.err != nil:
		return m, views.Flash(views.FlashError, "the edited value of %s is not saved: %v", key, msg.err)
	case msg.size > 0:
		return m, views.Flash(views.FlashError, "the edited value is %s; E reads back at most %s, so nothing was written (kvdeck set handles it whole)",
			widgets.BytesText(msg.size), widgets.BytesText(m.bigEditCap))
	}
	var old bytes.Buffer
	if json.Compact(&old, msg.e.Value) == nil && bytes.Equal(old.Bytes(), msg.value) {
		return m, nothingChanged(msg.e.Key)
	}
	guard := "Saved only if the key is still at stamp " + msg.e.Versionstamp() + ", keeping its remaining time to live; if another writer changed it meanwhile, nothing is written."
	session, e, value := m.deps.Session, msg.e, msg.value
	return m, views.Confirm("Save the edited value?", "save", func() tea.Msg { return bigSaveConfirmed{session: session, e: e, value: value} },
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
