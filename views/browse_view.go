package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// View renders the tree and the entry side by side.
func (m Browse) View() string {
	if m.width < 20 || m.height < 6 {
		return "window too small"
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, m.treeView(), m.rightView())
}

// treeView renders the left pane: title, the visible rows, a footer.
func (m Browse) treeView() string {
	w := m.treeInner()
	title := m.styles.PaneTitle.Render("KEYS")
	pos := ""
	if len(m.rows) > 0 {
		pos = m.styles.Muted.Render(fmt.Sprintf("%d/%d", m.cursor+1, len(m.rows)))
	}
	lines := []string{spread(title, pos, w)}
	end := min(m.offset+m.treeRows(), len(m.rows))
	for i := m.offset; i < end; i++ {
		lines = append(lines, m.rowView(m.rows[i], i == m.cursor, w))
	}
	for len(lines) < m.treeRows()+1 {
		lines = append(lines, "")
	}
	lines = append(lines, m.treeFooter())
	box := m.styles.Pane
	if m.focused && m.form == nil {
		box = m.styles.PaneFocused
	}
	return Pane(box, strings.Join(lines, "\n"), m.treeWidth(), m.height)
}

// treeFooter shows the filter input, or the filter in force.
func (m Browse) treeFooter() string {
	if m.filtering {
		return m.filterIn.View()
	}
	if f := m.filterLevel().filter; f != "" {
		return m.styles.Accent.Render("/"+f) + m.styles.Muted.Render(" (this level; esc clears)")
	}
	return ""
}

// rowView renders one tree line, w cells wide.
func (m Browse) rowView(r row, selected bool, w int) string {
	st := m.styles
	gutter := "  "
	if selected {
		gutter = "❯ "
	}
	l := line{{gutter + strings.Repeat("  ", r.depth), st.Text}}
	count := ""
	switch r.kind {
	case rowNode:
		l = append(l, m.nodeSpans(r.n)...)
		if r.n.hasChildren() {
			count = fmt.Sprint(r.n.count)
			if r.n.capped || (r.n.kind == nodeUndecodable && r.n.parent.more != nil) {
				count += "+"
			}
		}
	case rowLoading:
		l = append(l, span{"loading…", st.Muted})
	case rowError:
		l = append(l, span{"✗ " + r.n.err.Error(), st.Error})
	case rowEmpty:
		text := "(no keys)"
		if r.n.filter != "" {
			text = fmt.Sprintf("(nothing loaded matches /%s)", r.n.filter)
		}
		l = append(l, span{text, st.Muted})
	case rowMore:
		l = append(l, span{m.moreText(r), st.Muted})
	case rowEarlier:
		l = append(l, span{"↑ earlier keys (enter loads from the first)", st.Muted})
	}
	if selected && m.focused {
		return st.Selected.Render(spread(l.render(true), count, w))
	}
	return spread(l.render(false), st.Count.Render(count), w)
}

// nodeSpans draws a node: the expand arrow, the part in its type's style,
// and a marker when the node is itself a stored key.
func (m Browse) nodeSpans(n *node) line {
	st := m.styles
	arrow := "  "
	if n.hasChildren() {
		arrow = "▸ "
		if n.expanded {
			arrow = "▾ "
		}
	}
	l := line{{arrow, st.Muted}}
	switch n.kind {
	case nodeUndecodable:
		return append(l, span{n.label(), st.Error})
	case nodeRaw:
		return append(l, span{n.label(), st.Warn})
	}
	l = append(l, span{n.part().String(), partStyle(st, n.part().Kind())})
	if n.isKey {
		l = append(l, span{" ●", st.KeyMark})
	}
	return l
}

func (m Browse) moreText(r row) string {
	switch {
	case r.n.loading:
		return "… loading more"
	case r.n.filter != "":
		return fmt.Sprintf("… more not loaded (filter hides %d; enter loads the next page)", r.hidden)
	}
	return "… more"
}

// rightView renders the right pane: the form when open, else the entry
// with its body scrolled by K/J or the wheel.
func (m Browse) rightView() string {
	w, h := m.entryWidth(), m.height
	if m.form != nil {
		return Pane(m.styles.PaneFocused, m.form.View(m.deps.Now()), w, h)
	}
	title, body := m.entryLines(m.entryInner())
	rows := m.entryRows()
	off := clampOffset(m.entryOff, rows, len(body))
	if len(body) > rows {
		pos := fmt.Sprintf("%d-%d of %d lines · K/J scroll", off+1, min(off+rows, len(body)), len(body))
		title = spread(title, m.styles.Muted.Render(pos), m.entryInner())
	}
	lines := append([]string{title}, body[off:min(off+rows, len(body))]...)
	return Pane(m.styles.Pane, strings.Join(lines, "\n"), w, h)
}

// entryRows is how many body lines the entry pane shows.
func (m Browse) entryRows() int { return max(m.innerHeight()-1, 1) }

// scrollEntry scrolls the entry pane by delta lines, within its body.
func (m *Browse) scrollEntry(delta int) {
	_, body := m.entryLines(m.entryInner())
	m.entryOff = clampOffset(m.entryOff+delta, m.entryRows(), len(body))
}
