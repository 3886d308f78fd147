package browse

import (
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views/browse/entry"
	"kvdeck/views/widgets"
)

// entryState is the right pane's row: which row it belongs to and what
// was read of it.
type entryState struct {
	sel    ref
	node   *node     // the selected node (nil for non-node rows)
	key    codec.Key // nil for an undecodable row
	raw    []byte
	wanted bool // the selection is a stored row, so it is read
	gen    int  // tag of the newest read; older answers are dropped
	loaded bool
	stale  bool
	found  bool
	e      store.Entry // its Value cut to entry.HeadCap bytes when cut
	err    error
	// size is the value's whole length; cut, that e.Value holds only its
	// head; json, that the whole value is JSON.
	size      int64
	cut, json bool
	// answers counts the reads applied; it tells the value cache that e changed.
	answers int
	// now is the row in the live store at a point of its past (past.go).
	now *nowState
}

// row is the entry as the reader and the editor take it.
func (st entryState) row() entry.Row {
	return entry.Row{E: st.e, Found: st.loaded && st.found, Err: st.err, Size: st.size, Cut: st.cut, JSON: st.json}
}

// Layout: the tree takes two fifths of the width, the entry the rest.
func (m Model) treeWidth() int  { return min(max(m.width*2/5, 24), 60, m.width) }
func (m Model) entryWidth() int { return m.width - m.treeWidth() }

// The insides of the two panes (their boxes have a border and padding).
func (m Model) treeInner() int  { return m.treeWidth() - m.styles.Pane.GetHorizontalFrameSize() }
func (m Model) entryInner() int { return m.entryWidth() - m.styles.Pane.GetHorizontalFrameSize() }
func (m Model) innerHeight() int {
	return m.height - m.styles.Pane.GetVerticalFrameSize()
}

// treeRows is how many tree lines fit: the pane's inside minus its title
// and footer lines.
func (m Model) treeRows() int { return max(m.innerHeight()-2, 1) }

// pageSize is how many children one load asks for: a screenful and a
// few, so that the first frame reads little more than it shows.
func (m Model) pageSize() int {
	if m.height == 0 {
		return 50
	}
	return m.treeRows() + 5
}

// loadLevel asks for one page of n's children, to be stored at page index
// at (len(pages) appends).
func (m *Model) loadLevel(n *node, at int, after []byte, replace bool) tea.Cmd {
	limit := m.pageSize()
	if at < len(n.pages) && !replace {
		limit = max(n.pages[at].limit, limit)
	}
	n.loading, n.gen = true, m.nextTag()
	return loadChildren(m.deps.Store, m.deps.Session, n.gen, n.key, at, after, limit, replace)
}

// loadLevelLimit reads n's children again from the first, limit of them,
// replacing what was loaded.
func (m *Model) loadLevelLimit(n *node, limit int) tea.Cmd {
	n.loading, n.gen = true, m.nextTag()
	return loadChildren(m.deps.Store, m.deps.Session, n.gen, n.key, 0, nil, limit, true)
}

// onChildren stores a page of children and re-lays the tree out.
func (m Model) onChildren(msg childrenLoaded) (Model, tea.Cmd) {
	if msg.session != m.deps.Session {
		return m, nil
	}
	n := lookup(m.root, msg.prefix)
	if n == nil || n.gen != msg.gen {
		return m, nil
	}
	n.loading = false
	var jumpCmd tea.Cmd
	switch {
	case msg.err != nil:
		n.err = msg.err
		// The failed read is not asked again at once: its pages stay as
		// read, the error shows under them, and the next Refresh (the
		// root's next tick, told by Failed) retries. Left stale, every
		// relayout re-read them: a loop of failing requests while the
		// store was away, Busy all along.
		n.retry = false
		for i := range n.pages {
			n.pages[i].stale = false
		}
		if m.jump != nil {
			jumpCmd = m.failJump("cannot read %s: %v", codec.Format(msg.prefix), msg.err)
		}
	case msg.replace && msg.after != nil && m.jump != nil && !m.jumpFound(msg):
		jumpCmd = m.failJump("no key %s", codec.Format(m.jump.target))
	default:
		n.err = nil
		at := msg.at
		if msg.replace {
			n.resetPages()
			at = 0
		}
		after := msg.after
		if msg.fromStart {
			after = nil
		}
		n.applyPage(min(at, len(n.pages)), after, msg.limit, msg.page)
	}
	cmd := m.relayout()
	cmd = tea.Batch(cmd, m.goOn(n))
	if m.jump != nil && jumpCmd == nil {
		jumpCmd = m.advanceJump()
	}
	return m, tea.Batch(cmd, jumpCmd)
}

// onEntry stores the read of the selected row.
func (m Model) onEntry(msg entryLoaded) (Model, tea.Cmd) {
	if msg.session != m.deps.Session {
		return m, nil
	}
	m.pane.busy = false
	if msg.gen == m.entry.gen {
		r := msg.row
		m.reread(r.Found, r.E)
		m.entry.loaded, m.entry.stale = true, false
		m.entry.found, m.entry.e, m.entry.err = r.Found, r.E, r.Err
		m.entry.size, m.entry.cut, m.entry.json = r.Size, r.Cut, r.JSON
		m.entry.answers++
		m.entry.now = thenNow(r, msg.now)
		m.editor.Reloaded(m.entry.row())
	}
	out := m.wantEntry()
	return m, out
}

// wantEntry reads the selected row when it needs reading and no read is in
// flight; a selection that moved on while one was is read when it lands.
func (m *Model) wantEntry() tea.Cmd {
	if m.pane.busy || !m.entry.wanted || (m.entry.loaded && !m.entry.stale) {
		return nil
	}
	m.pane.busy = true
	m.entry.gen = m.nextTag()
	return loadEntry(m.deps.Store, m.deps.Live, m.deps.Session, m.entry.gen, m.entry.raw)
}

// relayout flattens the tree again and keeps the cursor on the same row.
func (m *Model) relayout() tea.Cmd {
	m.rows = flatten(m.root)
	// Only a node is followed to its new place; on a "more" line the
	// cursor stays put, landing on the first child that just arrived
	// (following the line down would load page after page).
	i := -1
	for j, r := range m.rows {
		if m.sel.kind == rowNode && r.ref() == m.sel {
			i = j
			break
		}
	}
	// A reload keeps the cursor in view only if it was: the wheel may
	// have scrolled away from it on purpose.
	visible := m.cursor >= m.offset && m.cursor < m.offset+m.treeRows()
	if i < 0 && m.followSelection() {
		// The selected key is past pages a reload dropped: wait on the
		// level's "more" line while they load again (keys are held).
		return tea.Batch(m.placeCursor(m.cursor, visible), m.advanceJump())
	}
	if i < 0 {
		i = min(m.cursor, len(m.rows)-1)
	}
	return m.placeCursor(i, visible)
}

// selectRow puts the cursor on row i, scrolls it into view, points the
// entry pane at it and loads what became visible.
func (m *Model) selectRow(i int) tea.Cmd { return m.placeCursor(i, true) }

// placeCursor is selectRow, scrolling to the cursor only when reveal is set.
func (m *Model) placeCursor(i int, reveal bool) tea.Cmd {
	i = max(min(i, len(m.rows)-1), 0)
	m.cursor = i
	if reveal {
		m.offset = widgets.ScrollTo(m.offset, i, m.treeRows(), len(m.rows))
	} else {
		m.offset = widgets.ClampOffset(m.offset, m.treeRows(), len(m.rows))
	}
	r := m.rows[i]
	m.sel = r.ref()
	var n *node
	if r.kind == rowNode {
		n = r.n
	}
	wanted := n != nil && (n.kind == nodeRaw || n.kind == nodePart && n.isKey)
	if m.entry.sel != m.sel || m.entry.wanted != wanted {
		m.lookedAway()
		m.entry = entryState{sel: m.sel, node: n, wanted: wanted, gen: m.nextTag()} // a new tag: an answer for the old selection is dropped
		if n != nil {
			m.entry.raw = n.raw
			if n.kind == nodePart {
				m.entry.key = n.key
			}
		}
		m.pane.off = 0
	}
	m.entry.node = n
	return tea.Batch(m.wantEntry(), m.reloadVisible())
}

// selected returns the node under the cursor, or nil.
func (m Model) selected() *node { return m.entry.node }

// selectedPrefix is the key of the node under the cursor, nil on an
// undecodable row or nothing: where the value search looks.
func (m Model) selectedPrefix() codec.Key {
	if n := m.selected(); n != nil && n.kind == nodePart {
		return n.key
	}
	return nil
}

// levelOf returns the level (parent node) a row belongs to and the page
// of that level it sits in.
func levelOf(r row) (*node, int) {
	switch {
	case r.kind != rowNode:
		return r.n, len(r.n.pages) - 1
	case r.n.kind == nodeRaw:
		return r.n.parent.parent, len(r.n.parent.parent.pages) - 1
	}
	return r.n.parent, r.page
}

// filterLevel is the level the filter applies to: the cursor's.
func (m Model) filterLevel() *node {
	if len(m.rows) == 0 {
		return m.root
	}
	n, _ := levelOf(m.rows[m.cursor])
	return n
}

// reloadVisible re-reads the stale pages on screen and loads the next page
// of a level whose end is on screen (or a few lines below), one request
// per level at a time. Nothing further off screen is read.
func (m *Model) reloadVisible() tea.Cmd {
	var cmds []tea.Cmd
	end := min(len(m.rows), m.offset+m.treeRows()+3)
	for i := m.offset; i < end; i++ {
		r := m.rows[i]
		lvl, pi := levelOf(r)
		if lvl != nil && lvl.loaded {
			cmds = append(cmds, m.wantCount(lvl))
		}
		if lvl == nil || lvl.loading || lvl.kind != nodePart {
			continue
		}
		switch {
		case r.kind == rowMore && lvl.filter == "" && m.cursor <= i:
			// Only a cursor coming down towards the level's end loads
			// on: one below it (on a later sibling, after G) loaded the
			// whole level in the background, a page each time the "more"
			// line came back on screen.
			cmds = append(cmds, m.loadLevel(lvl, len(lvl.pages), lvl.more, false))
		case r.kind == rowError && lvl.retry:
			lvl.retry = false
			cmds = append(cmds, m.loadLevel(lvl, len(lvl.pages), lvl.more, false))
		case pi >= 0 && pi < len(lvl.pages) && lvl.pages[pi].stale:
			cmds = append(cmds, m.loadLevel(lvl, pi, lvl.pages[pi].after, false))
		}
	}
	return tea.Batch(cmds...)
}

// move moves the cursor by delta rows.
func (m *Model) move(delta int) tea.Cmd { return m.selectRow(m.cursor + delta) }

// expand opens the selected node, loading its first page if needed; on
// an open node it moves to the first child.
func (m *Model) expand() tea.Cmd {
	n := m.selected()
	switch {
	case n == nil || !n.hasChildren():
		return nil
	case n.expanded:
		return m.move(1)
	}
	n.expanded = true
	var load tea.Cmd
	if !n.loaded && !n.loading && n.kind == nodePart {
		load = m.loadLevel(n, 0, nil, false)
	}
	return tea.Batch(load, m.relayout())
}

// collapse closes the selected node, or moves to its parent.
func (m *Model) collapse() tea.Cmd {
	n := m.selected()
	if n != nil && n.expanded {
		n.expanded = false
		return m.relayout()
	}
	lvl, _ := levelOf(m.rows[m.cursor])
	if lvl == nil || lvl == m.root {
		return nil
	}
	m.sel = ref{kind: rowNode, node: lvl.kind, raw: string(lvl.raw)}
	return m.relayout()
}

// activate is enter: toggle a node, or act on a "more" / "earlier" /
// error line.
func (m *Model) activate() tea.Cmd {
	r := m.rows[m.cursor]
	switch r.kind {
	case rowNode:
		if r.n.expanded {
			return m.collapse()
		}
		return m.expand()
	case rowMore, rowError:
		if !r.n.loading {
			return tea.Batch(m.loadLevel(r.n, len(r.n.pages), r.n.more, false), m.relayout())
		}
	case rowEarlier:
		if !r.n.loading {
			return tea.Batch(m.loadLevel(r.n, 0, nil, true), m.relayout())
		}
	case rowLoading, rowEmpty:
	}
	return nil
}

// onMouse scrolls the pane under the wheel; a click selects a tree row.
func (m Model) onMouse(msg tea.MouseMsg) (Model, tea.Cmd) {
	inTree := msg.X < m.treeWidth()
	step := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		step = -3
	case tea.MouseButtonWheelDown:
		step = 3
	case tea.MouseButtonLeft:
		if msg.Action == tea.MouseActionPress && inTree && !m.editor.Editing() {
			if i := m.offset + msg.Y - 2; msg.Y >= 2 && i < len(m.rows) {
				// A row clicked is chosen: a jump in flight would take
				// the cursor away from it when it lands, so it ends here
				// (and the keys held for its target with it).
				m.jump, m.held.keys, m.held.on = nil, nil, nil
				out := m.selectRow(i)
				return m, out
			}
		}
		return m, nil
	default:
		return m, nil
	}
	if !inTree {
		m.scrollEntry(step)
		return m, nil
	}
	// The wheel scrolls the tree without moving the selection.
	m.offset = widgets.ClampOffset(m.offset+step, m.treeRows(), len(m.rows))
	out := m.reloadVisible()
	return m, out
}
