package editor

import (
	"context"
	"errors"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views"
)

// commitOp names what a commit was for, to word its outcome.
type commitOp int

const (
	opEdit commitOp = iota
	opNew
	opDelete
	opOverwrite // an edit saved over the stamp a conflict showed (conflict.go)
)

// writeOp names the commit in the write journal (store.WithWriteOp).
func (op commitOp) writeOp() string {
	switch op {
	case opNew:
		return "browse: new key"
	case opDelete:
		return "browse: delete"
	case opOverwrite:
		return "browse: save over their stamp"
	case opEdit:
	}
	return "browse: edit"
}

// committed answers commit.
type committed struct {
	session, gen int
	op           commitOp
	key          codec.Key
	expected     string // the stamp the check asked for ("" = absent or expired)
	mut          store.Mutation
	res          store.CommitResult
	err          error
}

// commit runs one atomic commit: the CAS check on the stamp the user saw
// and the mutation.
func commit(src *store.Store, session, gen int, op commitOp, check store.Check, mut store.Mutation) tea.Cmd {
	return views.StoreCmd(views.WriteTimeout, func(ctx context.Context) tea.Msg {
		res, err := src.Commit(store.WithWriteOp(ctx, op.writeOp()), []store.Check{check}, []store.Mutation{mut})
		return committed{session: session, gen: gen, op: op, key: mut.Key, expected: check.Versionstamp, mut: mut, res: res, err: err}
	})
}

// Delete asks to delete the row e, guarded by the stamp shown (or, for a
// row expired unswept, by its still being expired or absent).
func (m *Model) Delete(e store.Entry) tea.Cmd {
	stamp, guard := "", "only if it is still expired or absent (it expired without being swept)"
	if e.Live(m.deps.Now()) {
		stamp, guard = e.Versionstamp(), "only if it is still at stamp "+e.Versionstamp()
	}
	do := commit(m.deps.Store, m.deps.Session, m.nextTag(), opDelete,
		store.Check{Key: e.Key, Versionstamp: stamp}, store.Mutation{Type: store.MutationDelete, Key: e.Key})
	return views.Confirm("Delete this key?", "delete", do,
		"Deletes the row "+codec.Format(e.Key)+",",
		guard+"; if another writer changed it meanwhile, nothing is deleted.")
}

// save validates the form and commits it; a save that would leave the
// row as it is (the same normalized value and expiry) writes nothing.
func (m *Model) save() tea.Cmd {
	f := m.form
	if f.saving || f.reloading {
		return nil
	}
	req, err := f.Request(m.deps.Now())
	if err != nil {
		f.Err = err.Error()
		return nil
	}
	if f.unchanged(req) {
		m.form = nil
		return nothingChanged(req.mut.Key)
	}
	f.setState(true, false)
	f.Err, f.Notice = "", ""
	f.sent = &req
	m.committing = true
	return commit(m.deps.Store, m.deps.Session, m.nextTag(), req.op, req.check, req.mut)
}

// nothingChanged is the answer to a save that would write what is stored.
func nothingChanged(k codec.Key) tea.Cmd {
	return views.Flash(views.FlashInfo, "nothing changed, nothing written: %s keeps its value and expiry (and its stamp)", codec.Format(k))
}

// onCommitted reports a commit's outcome; after a write, Browse shows the
// store again, and goes to a new key.
func (m Model) onCommitted(msg committed) (Model, tea.Cmd) {
	if msg.session != m.deps.Session {
		return m, nil
	}
	m.committing = false
	if msg.op == opOverwrite {
		return m.onOverwritten(msg)
	}
	if m.form != nil {
		m.form.setState(false, m.form.reloading)
	}
	switch {
	case msg.err != nil && errors.Is(msg.err, store.ErrReadOnly):
		return m, views.Flash(views.FlashError, "read-only: %v", msg.err)
	case msg.err != nil:
		if m.form != nil {
			m.form.Err = msg.err.Error()
			return m, nil
		}
		return m, views.Flash(views.FlashError, "%v", msg.err)
	case !msg.res.OK:
		return m.onConflict(msg)
	}
	text := "deleted " + codec.Format(msg.key)
	if msg.op != opDelete {
		text = "saved " + codec.Format(msg.key) + " at stamp " + msg.res.Versionstamp
	}
	m.form = nil
	m.ask.Refresh = true
	if msg.op == opNew {
		m.ask.Select = msg.key
	}
	return m, views.Flash(views.FlashOK, "%s", text)
}

// onConflict explains a failed check: what the user saw and what is there
// now, and offers the reload.
func (m Model) onConflict(msg committed) (Model, tea.Cmd) {
	actual := "absent or expired"
	if len(msg.res.Failed) > 0 && msg.res.Failed[0].Actual != "" {
		actual = "at stamp " + msg.res.Failed[0].Actual
	}
	saw := "absent"
	if msg.expected != "" {
		saw = "at stamp " + msg.expected
	}
	text := "conflict: you saw the key " + saw + "; it is now " + actual + ". Nothing was written."
	if m.form != nil {
		if msg.op == opNew {
			m.form.Err = "the key exists now (" + actual + "); choose another key or edit that one"
			return m, nil
		}
		m.form.Err = text + " ctrl+r reloads it."
		m.form.reload.SetEnabled(true)
		if m.form.sent != nil {
			// The conflict screen: theirs against yours (conflict.go).
			return m, m.openConflict(*m.form.sent, msg.expected)
		}
		return m, nil
	}
	if msg.op == opEdit {
		// E's save of a value too large for the form: the conflict
		// screen, without a form to go back to.
		return m, m.openConflict(formRequest{op: opEdit, mut: msg.mut}, msg.expected)
	}
	m.ask.Refresh = true
	return m, views.Flash(views.FlashError, "not deleted: %s", text)
}
