package browse

import (
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views"
)

// The loaded edge of a large level: G and pgdn
// stopped on the "… more" line. G now loads the level to its end, in
// large pages, the cursor following (any key stops it); pgdn past the
// edge goes on by the rest of its page once the next page has arrived.

// edgeState is G's and pgdn's loads past a level's loaded edge.
type edgeState struct {
	toEnd    *node // G loads this level to its end
	stay     bool  // ... for the filter: the cursor stays
	carryTo  int   // pgdn's target row past the loaded edge
	carryLvl *node // the level whose next page pgdn waits for
}

// endPage is how many children one of G's loads asks for.
const endPage = 1000

// lastMore returns the level whose "more" line is the tree's last row.
func (m Model) lastMore() *node {
	if len(m.rows) == 0 {
		return nil
	}
	r := m.rows[len(m.rows)-1]
	if r.kind != rowMore || r.n.filter != "" || r.n.kind != nodePart {
		return nil
	}
	return r.n
}

// bottom is G: the last row; when that is a level's "more" line, the
// level loads to its end.
func (m *Model) bottom() tea.Cmd {
	cmd := m.selectRow(len(m.rows) - 1)
	lvl := m.lastMore()
	if lvl == nil {
		return cmd
	}
	m.edge.toEnd = lvl
	var load tea.Cmd
	if !lvl.loading {
		load = m.loadEndPage(lvl)
	}
	var say tea.Cmd
	if sz := lvl.size; sz.capped || sz.known && sz.n > endPage {
		say = views.Flash(views.FlashInfo, "%s loads %s to its end (%s keys); any key stops", views.KeyName(m.keys.Bottom), levelName(lvl), lvl.sizeText())
	}
	return tea.Batch(cmd, load, say)
}

// pageDown is pgdn: a page down; past a level's loaded edge it waits for
// the next page and goes on.
func (m *Model) pageDown() tea.Cmd {
	to := m.cursor + m.treeRows()
	if lvl := m.lastMore(); lvl != nil && to > len(m.rows)-1 {
		m.edge.carryTo, m.edge.carryLvl = to, lvl
	}
	return m.selectRow(to)
}

// goOn carries G or pgdn on when a page of n has arrived.
func (m *Model) goOn(n *node) tea.Cmd {
	switch {
	case m.edge.toEnd == n && m.edge.stay:
		if n.more == nil || n.err != nil || n.loadedKids() >= filterLoadCap {
			m.edge.toEnd, m.edge.stay = nil, false
		}
		if m.edge.toEnd != nil && !n.loading {
			return m.loadEndPage(n)
		}
		return nil
	case m.edge.toEnd == n:
		if n.more == nil || n.err != nil {
			m.edge.toEnd = nil
		}
		var load tea.Cmd
		if m.edge.toEnd != nil && !n.loading {
			load = m.loadEndPage(n)
		}
		return tea.Batch(m.selectRow(len(m.rows)-1), load)
	case m.edge.carryLvl == n:
		to := m.edge.carryTo
		m.edge.carryTo, m.edge.carryLvl = 0, nil
		if m.lastMore() == n && to > len(m.rows)-1 {
			m.edge.carryTo, m.edge.carryLvl = to, n
		}
		return m.selectRow(to)
	}
	return nil
}

// loadEndPage asks for the next endPage children of n: the long pages
// that loading a level to its end reads.
func (m *Model) loadEndPage(n *node) tea.Cmd {
	n.loading, n.gen = true, m.nextTag()
	return loadChildren(m.deps.Store, m.deps.Session, n.gen, n.key, len(n.pages), n.more, endPage, false)
}

// filterLoadCap bounds what tab loads of a level for the filter.
const filterLoadCap = countBound

// loadForFilter is tab while filtering: the filter sees only the loaded
// children, so the rest of the level loads (up to filterLoadCap), the
// cursor staying where it is.
func (m *Model) loadForFilter(lvl *node) tea.Cmd {
	if lvl.more == nil || lvl.kind != nodePart {
		return views.Flash(views.FlashInfo, "the whole level is loaded: the filter sees every child")
	}
	if lvl.loadedKids() >= filterLoadCap {
		return views.Flash(views.FlashInfo, "the filter sees the first %d children loaded; :goto KEY reads the store for one key", filterLoadCap)
	}
	m.edge.toEnd, m.edge.stay = lvl, true
	if lvl.loading {
		return nil
	}
	return m.loadEndPage(lvl)
}
