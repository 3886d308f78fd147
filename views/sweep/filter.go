package sweep

import (
	"slices"

	tea "github.com/charmbracelet/bubbletea"
)

// The `/` filter keeps the prefixes whose name matches; the selection is
// kept by name (m.sel) across filters and censuses.

// shown are the indices (into census.scopes) of the rows the filter lets
// through, kept with the census per filter text (each redraw asks).
func (m Model) shown() []int {
	c := m.census
	if c == nil {
		return nil
	}
	if f := c.shownBy; f != nil && f.filter == m.filter.Text() {
		return f.rows
	}
	var out []int
	for i, sc := range c.scopes {
		if m.filter.Match(scopeName(sc)) {
			out = append(out, i)
		}
	}
	c.shownBy = &filtered{filter: m.filter.Text(), rows: out}
	return out
}

// move selects the row dir (±1) rows away among the shown ones.
func (m *Model) move(dir int) {
	shown := m.shown()
	if len(shown) == 0 {
		return
	}
	i := slices.Index(shown, m.cursor)
	if i < 0 {
		i = 0
	} else {
		i = min(max(i+dir, 0), len(shown)-1)
	}
	m.selectIndex(shown[i])
}

// selectIndex selects census row i and remembers its name.
func (m *Model) selectIndex(i int) {
	m.cursor, m.sel = i, ""
	if sc, ok := m.scope(); ok {
		m.sel = scopeName(sc)
	}
}

// follow puts the cursor back on the selected name in a new census or
// after the filter changed; when it is not shown, on the first shown row
// (none: the cursor is off the rows and nothing is selected).
func (m *Model) follow() {
	shown := m.shown()
	for _, i := range shown {
		if scopeName(m.census.scopes[i]) == m.sel {
			m.cursor = i
			return
		}
	}
	if slices.Contains(shown, m.cursor) {
		m.selectIndex(m.cursor)
		return
	}
	if len(shown) == 0 {
		m.cursor = len(m.scopes())
		return
	}
	m.selectIndex(shown[0])
}

// scopes are the census rows (none before the first census).
func (m Model) scopes() []sweepScope {
	if m.census == nil {
		return nil
	}
	return m.census.scopes
}

// handleFilter starts or clears the filter (ok: msg was one of its keys).
func (m Model) handleFilter(msg tea.KeyMsg) (Model, tea.Cmd, bool) {
	ok, changed, cmd := m.filter.Start(msg, &m.keys.FilterKeys)
	if changed && m.census != nil {
		m.follow()
	}
	return m, cmd, ok
}

// typeFilter takes a key while the filter is typed.
func (m Model) typeFilter(msg tea.KeyMsg) Model {
	if m.filter.Type(msg, &m.keys.FilterKeys) && m.census != nil {
		m.follow()
	}
	return m
}
