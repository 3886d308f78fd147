package activity

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Marking changed keys for a bulk action: space marks
// the key of the selected change and moves down, ctrl+a marks every key
// shown (again: clears), ; offers copy keys and, for keys marked on a
// write, delete as that write left them (checked against its stamp: a key
// written again since is skipped). A key is marked once, by its text.

// eventMark is the mark of ev's key; the stamp of a write, "" otherwise.
func eventMark(ev event) widgets.Mark {
	mk := widgets.Mark{ID: codec.Format(ev.key), Key: ev.key}
	if ev.kind == evSet {
		mk.Stamp = codec.FormatStamp(ev.ver)
	}
	return mk
}

// markID is the id of ev's key among the marks ("" when it does not
// decode: such a row cannot be marked).
func markID(ev event) string {
	if ev.key == nil {
		return ""
	}
	return codec.Format(ev.key)
}

// handleMarks handles space, ctrl+a and ; on the list.
func (m Model) handleMarks(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.keys.Marks
	switch {
	case key.Matches(msg, k.Bulk):
		return m, m.bulk()
	case key.Matches(msg, k.MarkAll):
		var all []widgets.Mark
		seen := map[string]bool{}
		for _, ev := range m.shown() {
			if id := markID(ev); id != "" && !seen[id] {
				seen[id] = true
				all = append(all, eventMark(ev))
			}
		}
		m.marks.All(all)
		return m, nil
	}
	if ev, ok := m.selected(); ok && ev.key != nil {
		m.marks.Toggle(eventMark(ev))
	}
	m.list.Handle(tea.KeyMsg{Type: tea.KeyDown}, m.keys.NavKeys, m.ids(), m.listRows())
	m.pinned, m.movedAt = true, time.Time{}
	return m, nil
}

// bulk offers the bulk actions over the marked keys.
func (m Model) bulk() tea.Cmd {
	if m.marks.Len() == 0 {
		return views.Flash(views.FlashInfo, "%s", m.keys.Marks.NoneMarked("key"))
	}
	var del []store.BulkUnit
	for _, mk := range m.marks.List() {
		if mk.Stamp != "" {
			del = append(del, store.DeleteUnit(mk.Key, mk.Stamp))
		}
	}
	actions := []views.BulkAction{{Key: "y", Name: "copy keys", Copy: true}}
	if len(del) > 0 {
		actions = append(actions, views.BulkAction{Key: "d", Name: fmt.Sprintf("delete %d key(s) as written", len(del)), Units: del, Says: "Each key is deleted if it still holds the write marked (its stamp)."})
	}
	return views.Bulk(m.marks.Count("key"), m.marks.Keys(), actions...)
}
