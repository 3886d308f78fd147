package compose

import (
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// up and down move the cursor over the ops.
func (m *Model) up() tea.Cmd {
	m.cursor = max(m.cursor-1, 0)
	return nil
}

func (m *Model) down() tea.Cmd {
	m.cursor = max(min(m.cursor+1, len(m.ops)-1), 0)
	return nil
}

// editSelected opens the editor on the selected op.
func (m *Model) editSelected() tea.Cmd {
	if m.cursor < len(m.ops) {
		m.openEditor(m.ops[m.cursor], m.cursor)
	}
	return nil
}

// askClear asks before dropping every staged op: staged work is lost
// without a trace. With nothing staged it does nothing.
func (m *Model) askClear() tea.Cmd {
	if len(m.ops) == 0 {
		return nil
	}
	n, session := len(m.ops), m.deps.Session
	return views.Confirm("Clear the composition?", "clear", func() tea.Msg { return composeCleared{session: session} },
		fmt.Sprintf("Drops the %d staged operation(s); nothing is written to the store. %s saves them first.", n, views.KeyName(m.keys.Save)))
}

// openPrompt opens the file path prompt to save or load.
func (m *Model) openPrompt(what, prompt string) tea.Cmd {
	m.prompting, m.prompt.Prompt = what, prompt
	m.prompt.SetValue(m.path)
	m.prompt.CursorEnd()
	return m.prompt.Focus()
}

// move swaps the selected op with its neighbour.
func (m *Model) move(delta int) {
	to := m.cursor + delta
	if to < 0 || to >= len(m.ops) {
		return
	}
	if (m.ops[m.cursor].kind == opCheck) != (m.ops[to].kind == opCheck) {
		return // checks stay above mutations
	}
	m.ops[m.cursor], m.ops[to] = m.ops[to], m.ops[m.cursor]
	m.cursor = to
}

// checksFirst lists the checks before the mutations, each in its order,
// and keeps the cursor on its op: a commit evaluates every check before
// any mutation, and the list reads the way it runs.
func (m *Model) checksFirst() {
	out := make([]stagedOp, 0, len(m.ops))
	cursor := m.cursor
	for pass := range 2 {
		for i, op := range m.ops {
			if (op.kind == opCheck) == (pass == 0) {
				if i == m.cursor {
					cursor = len(out)
				}
				out = append(out, op)
			}
		}
	}
	m.ops, m.cursor = out, cursor
}

// remove drops the selected op.
func (m *Model) remove() tea.Cmd {
	if m.cursor < len(m.ops) {
		m.ops = append(m.ops[:m.cursor:m.cursor], m.ops[m.cursor+1:]...)
		m.cursor = max(min(m.cursor, len(m.ops)-1), 0)
	}
	return nil
}

func (m *Model) openEditor(op stagedOp, index int) {
	m.editor = newOpEditor(m.styles, op, index)
	m.editor.SetSize(m.sideInner(), m.height-2)
}

// handleEditor handles keys while the operation editor is open.
func (m Model) handleEditor(msg tea.KeyMsg) (Model, tea.Cmd) {
	e := m.editor
	if key.Matches(msg, e.fill) {
		k, err := e.parsedKey()
		if err != nil {
			e.Err = views.Hint("type a valid key first: %s reads its stored stamp", e.fill)
			return m, nil
		}
		e.startFill()
		m.busy = true
		cmd := readStamps(m.deps.Store, m.deps.Session, m.nextTag(), stampsForEditor, []int{-1}, []codec.Key{k})
		return m, cmd
	}
	act, cmd := e.Handle(msg)
	switch act {
	case widgets.FormCancel:
		m.editor = nil
		return m, nil
	case widgets.FormSubmit:
		op, err := e.op()
		if err != nil {
			e.Err = err.Error()
			return m, nil
		}
		m.place(op, e.index)
		m.editor = nil
		return m, nil
	}
	return m, cmd
}

// place puts op at index, or appends it after the selection.
func (m *Model) place(op stagedOp, index int) {
	if index >= 0 && index < len(m.ops) {
		m.ops[index] = op
		return
	}
	at := min(m.cursor+1, len(m.ops))
	m.ops = append(m.ops[:at:at], append([]stagedOp{op}, m.ops[at:]...)...)
	m.cursor = at
	m.checksFirst()
}

// handlePrompt handles keys while the file path prompt is open.
func (m Model) handlePrompt(msg tea.KeyMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.input.Cancel):
		m.prompting = ""
		m.prompt.Blur()
		return m, nil
	case key.Matches(msg, m.input.Accept):
		path := strings.TrimSpace(m.prompt.Value())
		what := m.prompting
		m.prompting = ""
		m.prompt.Blur()
		if path == "" {
			return m, nil
		}
		m.path, m.busy = path, true
		if what == "save" {
			return m, saveComposition(m.deps.Session, path, m.ops)
		}
		return m, loadComposition(m.deps.Session, path)
	}
	var cmd tea.Cmd
	m.prompt, cmd = m.prompt.Update(msg)
	return m, cmd
}

// stageFrom appends what Browse sent ("Compose from here").
func (m Model) stageFrom(msg views.ComposeMsg) (Model, tea.Cmd) {
	for _, op := range opsOf(msg.Checks, msg.Mutations) {
		m.place(op, -1)
	}
	return m, views.Flash(views.FlashInfo, "staged %d operation(s) from Browse: %s", len(msg.Checks)+len(msg.Mutations),
		views.Hint("%s edits the selected one, %s commits", m.keys.Edit, m.keys.Commit))
}

// fillOff says why V cannot fill: the selection is not a check.
func (m Model) fillOff() string {
	if m.cursor >= len(m.ops) || m.ops[m.cursor].kind != opCheck {
		return views.Hint("select a check: %s makes it expect the stamp stored now", m.keys.Fill)
	}
	return ""
}

// fillSelected makes the selected check expect the stamp stored now.
func (m *Model) fillSelected() tea.Cmd {
	m.busy = true
	return readStamps(m.deps.Store, m.deps.Session, m.nextTag(), stampsForOps, []int{m.cursor}, []codec.Key{m.ops[m.cursor].key})
}

// askCommit reads the rows the mutations would change (onCurrent then
// asks, showing old → new, or says nothing would change); notes (what a
// retry changed) come first in the dialog.
func (m *Model) askCommit(notes ...string) tea.Cmd {
	if len(m.ops) == 0 {
		return views.Flash(views.FlashInfo, "%s", views.Hint("nothing staged: %s adds a check, %s a set, %s a delete", m.keys.AddCheck, m.keys.AddSet, m.keys.AddDelete))
	}
	if m.busy {
		return nil
	}
	_, muts, _ := commitOf(m.ops)
	keys := make([]codec.Key, len(muts))
	for i, mu := range muts {
		keys[i] = mu.Key
	}
	m.busy = true
	return readCurrent(m.deps.Store, m.deps.Session, m.nextTag(), notes, keys)
}

// onCurrent asks for confirmation, naming every write and what the
// mutations change; a composition whose every mutation would leave the
// store as it is is not committed.
func (m Model) onCurrent(msg currentRead) (Model, tea.Cmd) {
	if msg.session != m.deps.Session || msg.gen != m.tags {
		return m, nil
	}
	m.busy = false
	checks, muts, checkOp := commitOf(m.ops)
	lines := append(msg.notes, fmt.Sprintf("%d check(s), %d mutation(s) in one atomic commit; nothing is written unless every check holds.", len(checks), len(muts)))
	var changes []string
	if msg.err != nil {
		changes = append(changes, "What the mutations change could not be read: "+msg.err.Error())
	} else if len(muts) > 0 && len(msg.rows) == len(muts) {
		changed := 0
		for i, mu := range muts {
			before, after := rowImage(msg.rows[i]), mutationImage(mu, m.deps.Now())
			if (before == nil && after == nil) || (mu.Type == store.MutationSet && widgets.Unchanged(before, after)) {
				continue
			}
			if changed++; changed <= 3 {
				changes = append(changes, fmt.Sprintf("%s %s:", mu.Type, codec.Format(mu.Key)))
				changes = append(changes, widgets.ChangeLines(before, after)...)
			}
		}
		if changed == 0 {
			return m, views.Flash(views.FlashInfo, "nothing changed, nothing written: every set writes the value and expiry stored now and every delete's key is absent, so the commit was not made")
		}
		if changed > 3 {
			changes = append(changes, fmt.Sprintf("… and %d more mutation(s) that change something", changed-3))
		}
	}
	var named []string
	for _, c := range checks {
		named = append(named, fmt.Sprintf("check %s expects %s", codec.Format(c.Key), usertext.StampText(c.Versionstamp)))
	}
	if len(named) > 5 {
		named = append(named[:4], fmt.Sprintf("… and %d more check(s)", len(named)-4))
	}
	lines = append(append(lines, named...), changes...)
	do := composeCommit(m.deps.Store, m.deps.Session, m.nextTag(), checks, muts, checkOp)
	return m, views.Confirm("Commit this composition?", "commit", do, lines...)
}

// rowImage is a stored row as a preview shows it (nil: no row).
func rowImage(e *store.Entry) *widgets.RowImage {
	if e == nil {
		return nil
	}
	return &widgets.RowImage{Value: e.Value, ExpiresAt: e.ExpiresAt}
}

// mutationImage is the row mu leaves at now (nil: none).
func mutationImage(mu store.Mutation, now int64) *widgets.RowImage {
	if mu.Type != store.MutationSet {
		return nil
	}
	img := &widgets.RowImage{Value: mu.Value, ExpiresAt: mu.ExpiresAt}
	if mu.ExpireIn != nil {
		at := now + mu.ExpireIn.Milliseconds()
		img.ExpiresAt = &at
	}
	return img
}

// retry re-reads the keys of the failed checks; onStamps then refreshes
// them and asks to commit again.
func (m *Model) retry() tea.Cmd {
	o := m.outcome
	if o == nil || o.res.OK || o.err != nil || m.busy {
		return nil
	}
	var ops []int
	var keys []codec.Key
	for _, f := range o.res.Failed {
		if f.Index < len(o.checkOp) && o.checkOp[f.Index] < len(m.ops) {
			ops = append(ops, o.checkOp[f.Index])
			keys = append(keys, f.Key)
		}
	}
	m.busy = true
	return readStamps(m.deps.Store, m.deps.Session, m.nextTag(), stampsForRetry, ops, keys)
}

// onCommitted shows a commit's outcome.
func (m Model) onCommitted(msg composeCommitted) (Model, tea.Cmd) {
	if msg.session != m.deps.Session || msg.gen != m.tags {
		return m, nil
	}
	m.busy = false
	o := msg.outcome
	m.outcome = &o
	m.keys.Retry.SetEnabled(o.err == nil && !o.res.OK)
	for i := range m.ops {
		m.ops[i].refreshed = false
	}
	switch {
	case o.err != nil && errors.Is(o.err, store.ErrReadOnly):
		return m, views.Flash(views.FlashError, "read-only: %v", o.err)
	case o.err != nil:
		return m, views.Flash(views.FlashError, "commit failed: %v", o.err)
	case !o.res.OK:
		return m, views.Flash(views.FlashError, "commit failed: %d check(s) did not hold; nothing was written", len(o.res.Failed))
	case o.res.Versionstamp == "":
		return m, views.Flash(views.FlashOK, "committed (deletes only: no versionstamp)")
	}
	return m, views.Flash(views.FlashOK, "committed at stamp %s", o.res.Versionstamp)
}

// onStamps takes stored stamps read for the editor, a check, or a retry.
func (m Model) onStamps(msg stampsRead) (Model, tea.Cmd) {
	if msg.session != m.deps.Session || msg.gen != m.tags {
		return m, nil
	}
	m.busy = false
	if msg.purpose == stampsForEditor {
		if m.editor != nil {
			m.editor.filled(msg.found[0], msg.stamps[0], msg.err)
		}
		return m, nil
	}
	if msg.err != nil {
		return m, views.Flash(views.FlashError, "reading the stored stamps failed: %v", msg.err)
	}
	changed := 0
	var notes []string
	for i, at := range msg.ops {
		if at < len(m.ops) && m.ops[at].kind == opCheck {
			changed++
			notes = append(notes, changeNote(m.ops[at].key, m.ops[at].stamp, msg.stamps[i]))
			m.ops[at].stamp, m.ops[at].refreshed = msg.stamps[i], true
		}
	}
	if msg.purpose == stampsForOps {
		return m, views.Flash(views.FlashInfo, "the check now expects %s", usertext.StampText(msg.stamps[0]))
	}
	m.keys.Retry.SetEnabled(false)
	ask := m.askCommit(notes...)
	return m, tea.Batch(views.Flash(views.FlashInfo, "refreshed %d stale check(s) to the stored stamps: read the dialog before y", changed), ask)
}

// onFile reports a save or load.
func (m Model) onFile(msg compositionFile) (Model, tea.Cmd) {
	if msg.session != m.deps.Session {
		return m, nil
	}
	m.busy = false
	verb := "load"
	if msg.save {
		verb = "save"
	}
	if msg.err != nil {
		return m, views.Flash(views.FlashError, "%s %s: %v", verb, msg.path, msg.err)
	}
	if msg.save {
		return m, views.Flash(views.FlashOK, "saved %d operation(s) to %s (kvdeck atomic %s commits it)", len(msg.ops), msg.path, msg.path)
	}
	m.ops, m.cursor, m.outcome = msg.ops, 0, nil
	m.checksFirst()
	m.keys.Retry.SetEnabled(false)
	return m, views.Flash(views.FlashOK, "loaded %d operation(s) from %s", len(msg.ops), msg.path)
}

// composeCleared answers the clear dialog.
type composeCleared struct{ session int }

// changeNote says in words what refreshing a check changed, above all
// when it turns "expects absent" into "expects a stamp": the commit no
// longer guards against the write that created the key.
func changeNote(k codec.Key, was, now string) string {
	kt := codec.Format(k)
	switch {
	case was == "" && now != "":
		return fmt.Sprintf("Changed: the check on %s expected the key absent; it was written since (stamp %s), and the check now expects that stamp. "+
			"Committing now accepts that write instead of refusing it.", kt, now)
	case was != "" && now == "":
		return fmt.Sprintf("Changed: the check on %s expected stamp %s; the key is absent now, and the check now expects it absent.", kt, was)
	}
	return fmt.Sprintf("Changed: the check on %s expected stamp %s; it now expects %s, the stored one.", kt, was, now)
}
