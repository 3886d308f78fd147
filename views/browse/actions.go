package browse

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// handleBrowsing handles keys while the tree has them.
func (m Model) handleBrowsing(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.keys
	m.toEnd, m.endStay, m.carryTo, m.carryLvl = nil, false, 0, nil // any key stops G's and pgdn's loading
	if key.Matches(msg, k.Top, k.Bottom, k.Expand, k.Collapse, k.Toggle) {
		// A far move: the key left is a place (places.go).
		from, ok := m.Selected()
		m, cmd := m.handleBrowsingKey(msg)
		m.leftPlace(from, ok)
		return m, cmd
	}
	if key.Matches(msg, k.Diff) {
		m.toggleSeenDiff()
		return m, nil
	}
	return m.handleBrowsingKey(msg)
}

// handleBrowsingKey acts on a key while browsing.
func (m Model) handleBrowsingKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.keys
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, k.Up):
		cmd = m.move(-1)
	case key.Matches(msg, k.Down):
		cmd = m.move(1)
	case key.Matches(msg, k.PageUp):
		cmd = m.move(-m.treeRows())
	case key.Matches(msg, k.PageDown):
		cmd = m.pageDown()
	case key.Matches(msg, k.Top):
		cmd = m.selectRow(0)
	case key.Matches(msg, k.Bottom):
		cmd = m.bottom()
	case key.Matches(msg, k.Expand):
		cmd = m.expand()
	case key.Matches(msg, k.Collapse):
		cmd = m.collapse()
	case key.Matches(msg, k.Toggle):
		cmd = m.activate()
	case key.Matches(msg, k.ScrollUp):
		m.scrollEntry(-3)
	case key.Matches(msg, k.ScrollDown):
		m.scrollEntry(3)
	case key.Matches(msg, k.Edit):
		cmd = m.startEdit()
	case key.Matches(msg, k.New):
		m.startNew()
	case key.Matches(msg, k.Marks.Mark, k.Marks.MarkAll, k.Marks.Bulk):
		return m.handleMark(msg)
	case key.Matches(msg, k.Delete):
		cmd = m.askDelete()
	case key.Matches(msg, k.Copy):
		cmd = m.copySelected()
	case key.Matches(msg, k.Compose):
		cmd = m.composeFromHere()
	case key.Matches(msg, k.Record):
		cmd = m.showRecord()
	case key.Matches(msg, k.CopyValue):
		cmd = m.copyValue()
	case key.Matches(msg, k.Read):
		cmd = m.startReading()
	case key.Matches(msg, k.Pager):
		cmd = m.startPager()
	case key.Matches(msg, k.EditExternal):
		cmd = m.startExternalEdit()
	case key.Matches(msg, k.Filter):
		cmd = m.startFilter()
	case key.Matches(msg, k.ClearFilter):
		cmd = m.clearFilter()
	case key.Matches(msg, k.Reload):
		return m.Refresh()
	case key.Matches(msg, k.Search):
		cmd = m.startSearch()
	default:
		cmd = m.refuseReadOnly(msg)
	}
	return m, cmd
}

// startFilter opens the filter prompt on the level `/` was pressed on.
func (m *Model) startFilter() tea.Cmd {
	m.filtering = true
	m.filterFrom, _ = m.Selected()
	m.filterOn = m.filterLevel()
	m.filterIn.SetValue(m.filterOn.filter)
	m.filterIn.CursorEnd()
	return m.filterIn.Focus()
}

// clearFilter is esc: it clears the filter the prompt set.
func (m *Model) clearFilter() tea.Cmd {
	if lvl := m.clearable(); lvl != nil {
		lvl.filter = ""
	}
	return m.relayout()
}

// UsesEsc reports whether esc has something to back out of (a filter in
// force; views.EscUser).
func (m Model) UsesEsc() bool { return m.clearable() != nil }

// refuseReadOnly says why a write key does nothing in read-only mode (the
// bindings are disabled, so help leaves them out): every key of the one
// table, Keys.Writes.
func (m Model) refuseReadOnly(msg tea.KeyMsg) tea.Cmd {
	return m.keys.Writes().Refuse(m.readOnly, msg)
}

// handleFiltering handles keys while the filter input has them: the
// filter applies as it is typed; enter keeps it, esc drops it.
//
// The filter belongs to the level where `/` was pressed (filterOn), not
// to the cursor's: a filter that hides the cursor's row moved the cursor
// to another level, and the next character filtered that one (issue 22
// point 2). The cursor stays in the level, on its first row left.
func (m Model) handleFiltering(msg tea.KeyMsg) (Model, tea.Cmd) {
	lvl := m.filterOn
	switch {
	case key.Matches(msg, m.input.Accept):
		m.filtering = false
		m.filterIn.Blur()
		out := m.relayout()
		m.leftPlace(m.filterFrom, m.filterFrom != nil)
		return m, out
	case key.Matches(msg, m.input.Cancel):
		m.filtering = false
		m.filterIn.Blur()
		lvl.filter = ""
		m.toEnd, m.endStay = nil, false
		out := m.relayout()
		return m, out
	case key.Matches(msg, m.keys.FilterAll):
		out := m.loadForFilter(lvl)
		return m, out
	}
	var cmd tea.Cmd
	m.filterIn, cmd = m.filterIn.Update(msg)
	lvl.filter = m.filterIn.Value()
	out := tea.Batch(cmd, m.relayout(), m.stayInLevel(lvl))
	return m, out
}

// stayInLevel moves the cursor to lvl's first row when the filter took
// it out of the level.
func (m *Model) stayInLevel(lvl *node) tea.Cmd {
	if len(m.rows) == 0 {
		return nil
	}
	if cur, _ := levelOf(m.rows[m.cursor]); cur == lvl {
		return nil
	}
	for i, r := range m.rows {
		if l, _ := levelOf(r); l == lvl {
			return m.selectRow(i)
		}
	}
	return nil
}

// clearable is the level esc clears: the cursor's when it is filtered,
// else the one the last `/` filtered.
func (m Model) clearable() *node {
	if lvl := m.filterLevel(); lvl.filter != "" {
		return lvl
	}
	if m.filterOn != nil && m.filterOn.filter != "" {
		return m.filterOn
	}
	return nil
}

// handleForm handles keys while the entry form is open.
func (m Model) handleForm(msg tea.KeyMsg) (Model, tea.Cmd) {
	if m.conflict != nil {
		return m.handleConflict(msg) // the form's save met another writer
	}
	f := m.form
	if key.Matches(msg, f.reload) {
		f.setState(false, true)
		f.Notice = ""
		m.entry.stale = true
		if m.entryBusy {
			m.entry.gen = m.nextTag() // drop the answer in flight: it may predate the conflict
		}
		out := m.wantEntry()
		return m, out
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
		out := m.save()
		return m, out
	}
	return m, cmd
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

// startEdit opens the form on the selected entry.
func (m *Model) startEdit() tea.Cmd {
	n := m.selected()
	switch {
	case n == nil || n.kind == nodeUndecodable || (n.kind == nodePart && !n.isKey):
		return views.Flash(views.FlashInfo, "select a stored key to edit its value")
	case n.kind == nodeRaw:
		return views.Flash(views.FlashError, "an undecodable row cannot be addressed by key, so it cannot be edited here")
	case !m.entry.loaded || !m.entry.found:
		return views.Flash(views.FlashInfo, "the entry is not loaded yet")
	case m.entry.size > widgets.ValueCap: // a cut value (entryHeadCap) is never loaded into the form
		return views.Flash(views.FlashError, "the value is %d bytes; the TUI edits values up to %d bytes (kvdeck get / set handle it whole)", m.entry.size, widgets.ValueCap)
	}
	m.form = newEditForm(m.styles, m.entry.e, m.deps.Now)
	m.form.SetSize(m.entryInner(), m.innerHeight())
	return nil
}

// startNew opens the form for a new key under the selected prefix.
func (m *Model) startNew() {
	var prefix codec.Key
	if n := m.selected(); n != nil && n.kind == nodePart {
		prefix = n.key
		if !n.hasChildren() {
			prefix = n.key[:len(n.key)-1]
		}
	}
	m.form = newKeyForm(m.styles, m.deps.Now, prefix)
	m.form.SetSize(m.entryInner(), m.innerHeight())
}

// askDelete asks to delete the selected key, guarded by the shown stamp.
func (m *Model) askDelete() tea.Cmd {
	n := m.selected()
	switch {
	case n == nil || n.kind != nodePart || !n.isKey:
		if n != nil && n.kind == nodeRaw {
			return views.Flash(views.FlashError, "an undecodable row cannot be addressed by key; remove it with SQL or a sweep if it expires")
		}
		return views.Flash(views.FlashInfo, "select a stored key to delete it")
	case !m.entry.loaded || !m.entry.found:
		return views.Flash(views.FlashInfo, "the entry is not loaded yet")
	}
	e := m.entry.e
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

// onCommitted reports a commit's outcome.
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
	m, cmd := m.Refresh()
	if msg.op == opNew {
		m.jump = newJump(msg.key)
		cmd = tea.Batch(cmd, m.advanceJump())
	}
	return m, tea.Batch(cmd, views.Flash(views.FlashOK, "%s", text))
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
	m, cmd := m.Refresh()
	return m, tea.Batch(cmd, views.Flash(views.FlashError, "not deleted: %s", text))
}

// composeFromHere stages, in the Compose tab, a check on the selected
// entry's stamp and a set of its value (keeping its remaining TTL).
func (m *Model) composeFromHere() tea.Cmd {
	n := m.selected()
	switch {
	case n == nil || n.kind != nodePart || !n.isKey:
		return views.Flash(views.FlashInfo, "select a stored key to compose from it")
	case !m.entry.loaded || !m.entry.found:
		return views.Flash(views.FlashInfo, "the entry is not loaded yet")
	case m.entry.size > widgets.ValueCap:
		return views.Flash(views.FlashError, "the value is %d bytes; Compose takes values up to %d bytes (kvdeck atomic handles it whole)", m.entry.size, widgets.ValueCap)
	}
	e, now := m.entry.e, m.deps.Now()
	value, err := codec.NormalizeJSON(e.Value)
	if err != nil {
		return views.Flash(views.FlashError, "the stored value is not JSON, so it cannot be staged as a set: %v", err)
	}
	check := store.Check{Key: e.Key}
	set := store.Mutation{Type: store.MutationSet, Key: e.Key, Value: value}
	if e.Live(now) {
		check.Versionstamp = e.Versionstamp()
		if e.ExpiresAt != nil {
			left := widgets.MsUntil(*e.ExpiresAt, now)
			set.ExpireIn = &left
		}
	}
	return views.StageInCompose([]store.Check{check}, []store.Mutation{set})
}

// copySelected copies the selected key's text (a raw row's hex).
func (m *Model) copySelected() tea.Cmd {
	n := m.selected()
	if n == nil || n.kind == nodeUndecodable || m.deps.Clipboard == nil {
		return nil
	}
	text := n.label()
	if n.kind == nodePart {
		text = codec.Format(n.key)
	}
	return copyText(m.deps.Clipboard, text)
}

// copyValue copies the selected entry's value (its JSON text, whole).
func (m *Model) copyValue() tea.Cmd {
	if !m.entry.loaded || !m.entry.found || m.deps.Clipboard == nil {
		return views.Flash(views.FlashInfo, "select a stored key: Y copies its value")
	}
	if !m.entry.cut {
		return copyText(m.deps.Clipboard, string(m.entry.e.Value))
	}
	src, raw, ver, clip := m.deps.Store, m.entry.e.Raw, m.entry.e.Ver, m.deps.Clipboard
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		e, err := readWhole(ctx, src, raw, ver) // the pane holds only its head
		if err != nil {
			return copied{err: err}
		}
		return copyText(clip, string(e.Value))()
	})
}

func (m Model) onCopied(msg copied) tea.Cmd {
	if msg.err != nil {
		return views.Flash(views.FlashError, "copy failed: %v", msg.err)
	}
	what := msg.text
	if len(what) > 60 || strings.ContainsAny(what, "\n\r") {
		what = fmt.Sprintf("%d bytes", len(msg.text))
	}
	return views.Flash(views.FlashOK, "copied %s (OSC 52: your terminal must allow clipboard writes)", widgets.Sanitize(what))
}

// showRecord asks the root for the coordination tab of the selected key
// when it is a lease, cron, alarm or queue row (its first part names it).
func (m Model) showRecord() tea.Cmd {
	if n := m.selected(); n != nil && n.kind == nodePart && isRecordKey(n.key) {
		return views.ShowRecord(n.key)
	}
	return views.Flash(views.FlashInfo, "o opens the tab of a coordination row: select a key under dwk_lease, dwk_cron, dwk_alarm_* or dwk_queue_due")
}

// isRecordKey reports whether k's first part names a coordination record
// (dwk_*): o asks the root for its tab.
func isRecordKey(k codec.Key) bool {
	return len(k) > 0 && k[0].Kind() == codec.KindString && strings.HasPrefix(k[0].StringValue(), "dwk_")
}
