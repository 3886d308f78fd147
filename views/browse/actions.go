package browse

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/browse/entry"
	"kvdeck/views/widgets"
)

// handleBrowsing handles keys while the tree has them.
func (m Model) handleBrowsing(msg tea.KeyMsg) (Model, tea.Cmd) {
	m.edge = edgeState{} // any key stops G's and pgdn's loading
	return m.keys.actions().Handle(m, msg, m.readOnly)
}

// actions is Browse's table of keys: e and n open the entry form (its
// ctrl+s is the confirmation), E asks after the editor closes, d asks
// first.
func (k *Keys) actions() views.Actions[Model] {
	do := views.Run[Model]
	return views.Actions[Model]{
		{Binding: &k.Up, Do: move(-1)},
		{Binding: &k.Down, Do: move(1)},
		{Binding: &k.PageUp, Do: do(func(m *Model) tea.Cmd { return m.move(-m.treeRows()) })},
		{Binding: &k.PageDown, Do: do((*Model).pageDown)},
		{Binding: &k.Top, Do: far(func(m *Model) tea.Cmd { return m.selectRow(0) })},
		{Binding: &k.Bottom, Do: far((*Model).bottom)},
		{Binding: &k.Expand, Do: far((*Model).expand), Col: 1},
		{Binding: &k.Collapse, Do: far((*Model).collapse), Col: 1},
		{Binding: &k.Toggle, Do: far((*Model).activate), Col: 1, Short: 1},
		{Binding: &k.ScrollUp, Do: scroll(-3), Col: 1},
		{Binding: &k.ScrollDown, Do: scroll(3), Col: 1},
		{Binding: &k.Edit, What: "edit value", Asks: views.AskForm, Do: do((*Model).startEdit), Col: 2, Short: 2},
		{Binding: &k.New, What: "new key", Asks: views.AskForm, Do: do((*Model).startNew), Col: 2, Short: 3},
		{Binding: &k.Delete, What: "delete", Asks: views.AskDialog, Do: do((*Model).askDelete), Col: 2, Short: 4},
		{Binding: &k.Copy, Do: do((*Model).copySelected), Col: 2, Short: 5},
		{Binding: &k.CopyValue, Do: do((*Model).copyValue), Off: Model.copyValueOff, Col: 2},
		{Binding: &k.Compose, Do: do((*Model).composeFromHere), Col: 2},
		{Binding: &k.Record, Do: do((*Model).showRecord), Off: Model.recordOff, Col: 2},
		{Binding: &k.Filter, Do: do((*Model).startFilter), Col: 2, Short: 6},
		{Binding: &k.ClearFilter, Do: do((*Model).clearFilter), Col: 2},
		{Binding: &k.Reload, Do: do((*Model).reload), Col: 2},
		{Binding: &k.Search, Do: do(func(m *Model) tea.Cmd { return m.search.Start(m.selectedPrefix()) }), Col: 2},
		{Binding: &k.Read, Do: do(func(m *Model) tea.Cmd { return m.reader.Open(m.entry.row()) }), Col: 2},
		{Binding: &k.Pager, Do: do(func(m *Model) tea.Cmd { return m.reader.OpenPipe(m.entry.row()) }), Col: 2},
		{Binding: &k.EditExternal, What: "edit value in $EDITOR", Asks: views.AskDialog, Do: do((*Model).startExternalEdit), Col: 2},
		{Binding: &k.Diff, Do: do(func(m *Model) tea.Cmd { m.toggleSeenDiff(); return nil }), Col: 2},
		{Binding: &k.History, Do: do((*Model).askHistory), Col: 2},
		// P writes to the live store, not to the past shown (read-only):
		// its binding is on only at a point of the past, and it asks.
		{Binding: &k.PutBack, Do: do((*Model).askPutBack), Col: 2},
		{Binding: &k.Marks.Mark, Do: views.Step(Model.handleMark), Col: 3},
		{Binding: &k.Marks.MarkAll, Do: views.Step(Model.handleMark), Col: 3},
		{Binding: &k.Marks.Bulk, Do: views.Step(Model.handleMark), Col: 3},
	}
}

// move moves the cursor delta rows.
func move(delta int) func(*Model, tea.KeyMsg) tea.Cmd {
	return func(m *Model, _ tea.KeyMsg) tea.Cmd { return m.move(delta) }
}

// far is a far move (the first or last row, into or out of a level): the
// key it leaves is a place (places.go).
func far(f func(*Model) tea.Cmd) func(*Model, tea.KeyMsg) tea.Cmd {
	return func(m *Model, _ tea.KeyMsg) tea.Cmd {
		from, ok := m.Selected()
		cmd := f(m)
		m.leftPlace(from, ok)
		return cmd
	}
}

// scroll scrolls the entry pane delta lines.
func scroll(delta int) func(*Model, tea.KeyMsg) tea.Cmd {
	return func(m *Model, _ tea.KeyMsg) tea.Cmd {
		m.scrollEntry(delta)
		return nil
	}
}

// reload re-reads the tree (r).
func (m *Model) reload() tea.Cmd {
	var cmd tea.Cmd
	*m, cmd = m.Refresh()
	return cmd
}

// startFilter opens the filter prompt on the level `/` was pressed on.
func (m *Model) startFilter() tea.Cmd {
	m.filter.on = true
	m.filter.from, _ = m.Selected()
	m.filter.level = m.filterLevel()
	m.filter.in.SetValue(m.filter.level.filter)
	m.filter.in.CursorEnd()
	return m.filter.in.Focus()
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

// handleFiltering handles keys while the filter input has them: the
// filter applies as it is typed; enter keeps it, esc drops it.
//
// The filter belongs to the level where `/` was pressed (filterOn), not
// to the cursor's: a filter that hides the cursor's row moved the cursor
// to another level, and the next character filtered that one. The cursor
// stays in the level, on its first row left.
func (m Model) handleFiltering(msg tea.KeyMsg) (Model, tea.Cmd) {
	lvl := m.filter.level
	switch {
	case key.Matches(msg, m.input.Accept):
		m.filter.on = false
		m.filter.in.Blur()
		out := m.relayout()
		m.leftPlace(m.filter.from, m.filter.from != nil)
		return m, out
	case key.Matches(msg, m.input.Cancel):
		m.filter.on = false
		m.filter.in.Blur()
		lvl.filter = ""
		m.edge.toEnd, m.edge.stay = nil, false
		out := m.relayout()
		return m, out
	case key.Matches(msg, m.keys.FilterAll):
		out := m.loadForFilter(lvl)
		return m, out
	}
	var cmd tea.Cmd
	m.filter.in, cmd = m.filter.in.Update(msg)
	lvl.filter = m.filter.in.Value()
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
	if m.filter.level != nil && m.filter.level.filter != "" {
		return m.filter.level
	}
	return nil
}

// editRefusal says why e cannot edit the selection's value (nil: it
// can): it must be a stored key, read, whose value the form takes.
func (m Model) editRefusal() tea.Cmd {
	n := m.selected()
	switch {
	case n == nil || n.kind == nodeUndecodable || (n.kind == nodePart && !n.isKey):
		return views.Flash(views.FlashInfo, "select a stored key to edit its value")
	case n.kind == nodeRaw:
		return views.Flash(views.FlashError, "an undecodable row cannot be addressed by key, so it cannot be edited here")
	case !m.entry.loaded || !m.entry.found:
		return views.Flash(views.FlashInfo, "the entry is not loaded yet")
	case m.entry.size > widgets.ValueCap: // a cut value (entry.HeadCap) is never loaded into the form
		return views.Flash(views.FlashError, "the value is %d bytes; the TUI edits values up to %d bytes (kvdeck get / set handle it whole)", m.entry.size, widgets.ValueCap)
	}
	return nil
}

// startEdit opens the form on the selected entry.
func (m *Model) startEdit() tea.Cmd {
	if cmd := m.editRefusal(); cmd != nil {
		return cmd
	}
	m.editor.Edit(m.entry.e)
	return nil
}

// startNew opens the form for a new key under the selected prefix.
func (m *Model) startNew() tea.Cmd {
	var prefix codec.Key
	if n := m.selected(); n != nil && n.kind == nodePart {
		prefix = n.key
		if !n.hasChildren() {
			prefix = n.key[:len(n.key)-1]
		}
	}
	m.editor.NewKey(prefix)
	return nil
}

// startExternalEdit hands the selected value to $EDITOR (E): a stored
// key's value of any size (over the form's, it never enters the form);
// any other selection is refused as e refuses it. E again before the
// editor has closed only says so (the editor's part).
func (m *Model) startExternalEdit() tea.Cmd {
	n := m.selected()
	big := n != nil && n.kind == nodePart && n.isKey && m.entry.loaded && m.entry.found && m.entry.size > widgets.ValueCap
	if !big && !m.editor.Launching() {
		if cmd := m.editRefusal(); cmd != nil {
			return cmd
		}
	}
	return m.editor.External(m.entry.row())
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
	return m.editor.Delete(m.entry.e)
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

// copyValueOff says why Y cannot copy: no stored key is selected.
func (m Model) copyValueOff() string {
	if !m.entry.loaded || !m.entry.found || m.deps.Clipboard == nil {
		return views.Hint("select a stored key: %s copies its value", m.keys.CopyValue)
	}
	return ""
}

// copyValue copies the selected entry's value (its JSON text, whole).
func (m *Model) copyValue() tea.Cmd {
	if !m.entry.cut {
		return copyText(m.deps.Clipboard, string(m.entry.e.Value))
	}
	src, raw, ver, clip := m.deps.Store, m.entry.e.Raw, m.entry.e.Ver, m.deps.Clipboard
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		e, err := entry.ReadWhole(ctx, src, raw, ver) // the pane holds only its head
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

// recordOff says why o cannot show a tab: the selection is no
// coordination row.
func (m Model) recordOff() string {
	if n := m.selected(); n != nil && n.kind == nodePart && isRecordKey(n.key) {
		return ""
	}
	return views.Hint("%s opens the tab of a coordination row: select a key under dwk_lease, dwk_cron, dwk_alarm_* or dwk_queue_due", m.keys.Record)
}

// showRecord asks the root for the coordination tab of the selected key
// when it is a lease, cron, alarm or queue row (its first part names it).
func (m *Model) showRecord() tea.Cmd { return views.ShowRecord(m.selected().key) }

// isRecordKey reports whether k's first part names a coordination record
// (dwk_*): o asks the root for its tab.
func isRecordKey(k codec.Key) bool {
	return len(k) > 0 && k[0].Kind() == codec.KindString && strings.HasPrefix(k[0].StringValue(), "dwk_")
}
