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
	k := m.keys
	m.edge = edgeState{} // any key stops G's and pgdn's loading
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

// handleBrowsingKey acts on a key while browsing: a move, or an action
// on the selection.
func (m Model) handleBrowsingKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	if cmd, ok := m.moveKey(msg); ok {
		return m, cmd
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Marks.Mark, k.Marks.MarkAll, k.Marks.Bulk):
		return m.handleMark(msg)
	case key.Matches(msg, k.Reload):
		return m.Refresh()
	}
	for _, a := range k.actions() {
		if key.Matches(msg, a.binding) {
			return m, a.do(&m)
		}
	}
	return m, m.refuseReadOnly(msg)
}

// action is a key that acts on the selection, and what it does.
type action struct {
	binding key.Binding
	do      func(*Model) tea.Cmd
}

// actions are the keys that act on the selection (a disabled binding,
// read-only, matches none: refuseReadOnly says why).
func (k Keys) actions() []action {
	return []action{
		{k.Edit, (*Model).startEdit},
		{k.New, func(m *Model) tea.Cmd { m.startNew(); return nil }},
		{k.Delete, (*Model).askDelete},
		{k.Copy, (*Model).copySelected},
		{k.Compose, (*Model).composeFromHere},
		{k.Record, (*Model).showRecord},
		{k.CopyValue, (*Model).copyValue},
		{k.Read, func(m *Model) tea.Cmd { return m.reader.Open(m.entry.row()) }},
		{k.Pager, func(m *Model) tea.Cmd { return m.reader.OpenPipe(m.entry.row()) }},
		{k.EditExternal, (*Model).startExternalEdit},
		{k.Filter, (*Model).startFilter},
		{k.ClearFilter, (*Model).clearFilter},
		{k.Search, func(m *Model) tea.Cmd { return m.search.Start(m.selectedPrefix()) }},
		{k.PutBack, (*Model).askPutBack},
		{k.History, (*Model).askHistory},
	}
}

// moveKey moves the cursor in the tree, opens or closes a level, or
// scrolls the entry pane; false when msg is none of those keys.
func (m *Model) moveKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Up):
		return m.move(-1), true
	case key.Matches(msg, k.Down):
		return m.move(1), true
	case key.Matches(msg, k.PageUp):
		return m.move(-m.treeRows()), true
	case key.Matches(msg, k.PageDown):
		return m.pageDown(), true
	case key.Matches(msg, k.Top):
		return m.selectRow(0), true
	case key.Matches(msg, k.Bottom):
		return m.bottom(), true
	case key.Matches(msg, k.Expand):
		return m.expand(), true
	case key.Matches(msg, k.Collapse):
		return m.collapse(), true
	case key.Matches(msg, k.Toggle):
		return m.activate(), true
	case key.Matches(msg, k.ScrollUp):
		m.scrollEntry(-3)
		return nil, true
	case key.Matches(msg, k.ScrollDown):
		m.scrollEntry(3)
		return nil, true
	}
	return nil, false
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
func (m *Model) startNew() {
	var prefix codec.Key
	if n := m.selected(); n != nil && n.kind == nodePart {
		prefix = n.key
		if !n.hasChildren() {
			prefix = n.key[:len(n.key)-1]
		}
	}
	m.editor.NewKey(prefix)
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
