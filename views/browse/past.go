package browse

import (
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/views"
	"kvdeck/views/browse/entry"
	"kvdeck/views/widgets"
)

// At a point of the store's past (the root's :at, views.Deps.Live set),
// Browse shows the past and, in the entry pane, the selected key then
// and now: the stamp it has now and the change path by path (the diff
// widget), read with the row itself. P asks the root to put the marked
// keys, else the selected one, back as they were then; H asks for the
// selected key's history. The writes are the root's (it holds both
// stores): Browse only names the keys.

// nowState is the selected row in the live store, beside the row then.
type nowState struct {
	row entry.Row
	// diff is then → now, when both rows were read whole and differ.
	diff    widgets.ValueDiff
	diffed  bool
	changed bool // the row now is not the row then (another stamp, or none)
}

// thenNow compares the row then with the row now (nil: the live store
// is shown).
func thenNow(then entry.Row, now *entry.Row) *nowState {
	if now == nil {
		return nil
	}
	n := &nowState{row: *now}
	switch {
	case now.Err != nil || then.Err != nil:
	case then.Found != now.Found:
		n.changed = true
	case then.Found && then.E.Ver != now.E.Ver:
		n.changed = true
		if !then.Cut && !now.Cut {
			n.diff, n.diffed = widgets.NewValueDiff(then.E.Value, now.E.Value), true
		}
	}
	return n
}

// nowLines are the entry pane's lines on the row now, at most rows of
// diff.
func (m Model) nowLines(w, rows int) []string {
	st, n := m.styles, m.entry.now
	if n == nil {
		return nil
	}
	switch {
	case n.row.Err != nil:
		return m.field("now", widgets.Line{{Text: "✗ " + n.row.Err.Error(), Style: st.Error}}, w)
	case !n.row.Found:
		return m.field("now", widgets.Line{{Text: "no row now (deleted since) · P puts it back", Style: st.Warn}}, w)
	case !n.changed:
		return m.field("now", widgets.Line{{Text: "as then (stamp " + n.row.E.Versionstamp() + ")", Style: st.OK}}, w)
	}
	out := m.field("now", widgets.Line{{Text: "stamp " + n.row.E.Versionstamp() + ", changed since · P puts then back", Style: st.Warn}}, w)
	if !n.diffed {
		return append(out, m.wrapText("a value is over what Browse reads: only the stamps are compared", st.Muted, w)...)
	}
	out = append(out, st.Label.Render("then → now"))
	for _, l := range widgets.DiffLines(st, n.diff, w, max(rows, 1)) {
		out = append(out, l.Render(false))
	}
	return out
}

// askPutBack is P: the marked keys, else the selected row, to put back.
func (m *Model) askPutBack() tea.Cmd {
	var raws [][]byte
	for _, mk := range m.marks.List() {
		if raw, err := codec.Encode(mk.Key); err == nil {
			raws = append(raws, raw)
		}
	}
	if len(raws) == 0 && m.entry.wanted && m.entry.raw != nil {
		raws = [][]byte{m.entry.raw}
	}
	if len(raws) == 0 {
		return views.Flash(views.FlashError, "P puts a key back: select a stored key or mark some")
	}
	return func() tea.Msg { return views.PutBackMsg{Keys: raws} }
}

// askHistory is H: the selected key's history.
func (m *Model) askHistory() tea.Cmd {
	if !m.entry.wanted || m.entry.key == nil {
		return views.Flash(views.FlashError, "H shows a stored key's history: select one")
	}
	k, raw := m.entry.key, m.entry.raw
	return func() tea.Msg { return views.KeyHistoryMsg{Key: k, Raw: raw} }
}
