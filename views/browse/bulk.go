package browse

import (
	"context"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Marking keys for a bulk action: space marks the
// stored key under the cursor and moves down, ctrl+a marks every stored
// key shown (again: clears), ; offers delete and copy keys over the
// marked ones (the root asks and runs them, tui/bulk.go). A mark holds
// the stamp read when it was made, so the delete is checked against it.

// marksRead answers readMarks: the marked keys' rows as they stand.
type marksRead struct {
	session int
	entries []*store.Entry
	err     error
}

// readMarks reads keys' rows (their stamps) to mark them.
func readMarks(s *store.Store, session int, keys []codec.Key) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		es, err := s.GetMany(ctx, keys)
		return marksRead{session: session, entries: es, err: err}
	})
}

// onMarksRead marks the rows read (a key gone since is not marked).
func (m Model) onMarksRead(msg marksRead) (Model, tea.Cmd) {
	if msg.session != m.deps.Session {
		return m, nil
	}
	if msg.err != nil {
		return m, views.Flash(views.FlashError, "mark: %v", msg.err)
	}
	for _, e := range msg.entries {
		if e != nil && e.KeyErr == nil && !m.marks.Has(codec.Format(e.Key)) {
			m.marks.Toggle(widgets.Mark{ID: codec.Format(e.Key), Key: e.Key, Stamp: e.Versionstamp()})
		}
	}
	return m, nil
}

// markable is a node a mark can name: a stored, decodable key.
func markable(n *node) bool { return n != nil && n.kind == nodePart && n.isKey }

// handleMark handles space, ctrl+a and ; on the tree.
func (m Model) handleMark(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.keys.Marks
	switch {
	case key.Matches(msg, k.Bulk):
		return m, m.bulk()
	case key.Matches(msg, k.MarkAll):
		var keys []codec.Key
		all := true
		for _, r := range m.rows {
			if r.kind == rowNode && markable(r.n) {
				keys = append(keys, r.n.key)
				all = all && m.marks.Has(codec.Format(r.n.key))
			}
		}
		if all {
			m.marks.Clear()
			return m, nil
		}
		return m, readMarks(m.deps.Store, m.deps.Session, keys)
	}
	n := m.selected()
	var cmd tea.Cmd
	switch {
	case !markable(n):
	case m.marks.Has(codec.Format(n.key)):
		m.marks.Toggle(widgets.Mark{ID: codec.Format(n.key)})
	case m.entry.loaded && m.entry.found && m.entry.node == n:
		m.marks.Toggle(widgets.Mark{ID: codec.Format(n.key), Key: n.key, Stamp: m.entry.e.Versionstamp()})
	default:
		cmd = readMarks(m.deps.Store, m.deps.Session, []codec.Key{n.key})
	}
	return m, tea.Batch(cmd, m.move(1))
}

// bulk offers the bulk actions over the marked keys.
func (m Model) bulk() tea.Cmd {
	if m.marks.Len() == 0 {
		return views.Flash(views.FlashInfo, "%s", m.keys.Marks.NoneMarked("key"))
	}
	var del []store.BulkUnit
	for _, mk := range m.marks.List() {
		del = append(del, store.DeleteUnit(mk.Key, mk.Stamp))
	}
	return views.Bulk(m.marks.Count("key"), m.marks.Keys(),
		views.BulkAction{Key: "d", Name: "delete", Units: del, Says: "Each key is deleted."},
		views.BulkAction{Key: "y", Name: "copy keys", Copy: true})
}
