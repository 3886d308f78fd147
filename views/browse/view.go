package browse

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// View renders the tree and the entry side by side.
func (m Model) View() string {
	if m.width < 20 || m.height < 6 {
		return widgets.TooSmall
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, m.treeView(), m.rightView())
}

// treeView renders the left pane: title, the visible rows, a footer.
func (m Model) treeView() string {
	w := m.treeInner()
	title := m.styles.PaneTitle.Render("KEYS")
	pos := ""
	if len(m.rows) > 0 {
		text := fmt.Sprintf("%d/%d", m.cursor+1, len(m.rows))
		if lvl := m.filterLevel(); !lvl.complete() && lvl.kind == nodePart {
			// A level loaded in part: how many of its children are
			// loaded, of how many the store holds.
			text = "level " + lvl.sizeText() + " loaded"
		}
		pos = m.styles.Muted.Render(text)
	}
	if ind := m.marks.Indicator(); ind != "" {
		pos = m.styles.Accent.Render(ind) + " " + pos
	}
	if note := m.filterNote(); note != "" {
		pos = m.styles.Warn.Render(widgets.FitWidth(note, max(w-6, 1)))
	}
	lines := []string{widgets.Spread(title, pos, w)}
	end := min(m.offset+m.treeRows(), len(m.rows))
	for i := m.offset; i < end; i++ {
		lines = append(lines, m.rowView(m.rows[i], i == m.cursor, w))
	}
	for len(lines) < m.treeRows()+1 {
		lines = append(lines, "")
	}
	lines = append(lines, m.treeFooter())
	box := widgets.PaneBox(m.styles, m.focused && !m.editor.Editing() && !m.reader.Reading())
	return widgets.Pane(box, strings.Join(lines, "\n"), m.treeWidth(), m.height)
}

// treeFooter shows the filter input, a jump in flight, or the filter in
// force.
func (m Model) treeFooter() string {
	if m.reader.Piping() {
		return m.reader.PromptView()
	}
	if m.filter.on {
		return m.filter.in.View()
	}
	if m.jump != nil {
		return m.styles.Muted.Render(widgets.FitWidth("going to "+widgets.Sanitize(codec.Format(m.jump.target))+"…", m.treeInner()))
	}
	if lvl := m.clearable(); lvl != nil {
		where := "this level"
		if lvl != m.filterLevel() {
			where = "on " + levelName(lvl)
		}
		return widgets.FitWidth(m.styles.Accent.Render("/"+widgets.Sanitize(lvl.filter))+m.styles.Muted.Render(" ("+where+"; "+views.KeyName(m.keys.ClearFilter)+" clears)"), m.treeInner())
	}
	return ""
}

// filterNote says, while a filter is on a level only partly loaded, that
// it sees only the loaded children.
func (m Model) filterNote() string {
	lvl := m.clearable()
	if m.filter.on {
		lvl = m.filter.level
	}
	if lvl == nil || lvl.filter == "" || lvl.more == nil {
		return ""
	}
	if m.edge.toEnd == lvl && m.edge.stay {
		return fmt.Sprintf("loading for the filter: %s", lvl.sizeText())
	}
	if m.filter.on && lvl.loadedKids() < filterLoadCap {
		if text := fmt.Sprintf("filters %s loaded · %s: all", lvl.sizeText(), views.KeyName(m.keys.FilterAll)); ansi.StringWidth(text) <= m.treeInner()-6 {
			return text
		}
		return fmt.Sprintf("%s · %s: all", lvl.sizeText(), views.KeyName(m.keys.FilterAll))
	}
	return fmt.Sprintf("filter sees only the loaded: %s", lvl.sizeText())
}

// levelName names a level for the footer.
func levelName(n *node) string {
	if n.key == nil {
		return "the top level"
	}
	return widgets.Sanitize(codec.Format(n.key))
}

// rowView renders one tree line, w cells wide.
func (m Model) rowView(r row, selected bool, w int) string {
	st := m.styles
	gutter := "  "
	if selected {
		gutter = "❯ "
	}
	if r.kind == rowNode && markable(r.n) && m.marks.Has(codec.Format(r.n.key)) {
		gutter = gutter[:len(gutter)-1] + "✓" // the mark column (bulk.go)
	}
	l := widgets.Line{{Text: gutter + strings.Repeat("  ", r.depth), Style: st.Text}}
	count := ""
	switch r.kind {
	case rowNode:
		if r.n.hasChildren() {
			count = fmt.Sprint(r.n.count)
			if r.n.capped || (r.n.kind == nodeUndecodable && r.n.parent.more != nil) {
				count += "+"
			}
		}
		// Spread keeps one cell before the count.
		room := w - ansi.StringWidth(count) - 1 - ansi.StringWidth(l.Render(true))
		l = append(l, m.nodeSpans(r.n, room)...)
	case rowLoading:
		l = append(l, widgets.Span{Text: "loading…", Style: st.Muted})
	case rowError:
		l = append(l, widgets.Span{Text: "✗ " + r.n.err.Error(), Style: st.Error})
	case rowEmpty:
		text := "(no keys)"
		if r.n.filter != "" {
			text = fmt.Sprintf("(nothing loaded matches /%s)", r.n.filter)
		}
		l = append(l, widgets.Span{Text: text, Style: st.Muted})
	case rowMore:
		l = append(l, widgets.Span{Text: m.moreText(r), Style: st.Muted})
	case rowEarlier:
		l = append(l, widgets.Span{Text: "↑ earlier keys (enter loads from the first)", Style: st.Muted})
	}
	if selected && m.focused {
		return st.Selected.Render(widgets.Spread(l.Render(true), count, w))
	}
	return widgets.Spread(l.Render(false), st.Count.Render(count), w)
}

// nodeSpans draws a node in room cells: the expand arrow, the part in its
// type's style, and a marker when the node is itself a stored key. A part
// too long for the room loses its middle, not its end: ids that share a
// prefix differ at their end, and the marker stays.
func (m Model) nodeSpans(n *node, room int) widgets.Line {
	st := m.styles
	arrow := "  "
	if n.hasChildren() {
		arrow = "▸ "
		if n.expanded {
			arrow = "▾ "
		}
	}
	l := widgets.Line{{Text: arrow, Style: st.Muted}}
	var label widgets.Line
	var mark widgets.Line
	switch n.kind {
	case nodeUndecodable:
		label = widgets.Line{{Text: n.label(), Style: st.Error}}
	case nodeRaw:
		label = widgets.Line{{Text: n.label(), Style: st.Warn}}
	default:
		label = widgets.Line{{Text: n.part().String(), Style: widgets.PartStyle(st, n.part().Kind())}}
		if n.isKey {
			mark = widgets.Line{{Text: " ●", Style: st.KeyMark}}
		}
		if n.isKey && n.exp != nil && *n.exp <= m.deps.Now() {
			// Expired, not swept: struck through, as the entry pane shows it.
			label = widgets.Line{{Text: n.part().String(), Style: st.Expired}}
			mark = widgets.Line{{Text: " ✗", Style: st.Warn}}
		}
	}
	// Below a few cells a middle cut says nothing: the row is cut at its end.
	if fit := room - ansi.StringWidth(arrow) - ansi.StringWidth(mark.Render(true)); fit >= 8 {
		label = label.CutMiddle(fit)
	}
	return append(append(l, label...), mark...)
}

func (m Model) moreText(r row) string {
	switch {
	case r.n.loading:
		return "… loading more"
	case r.n.filter != "":
		return fmt.Sprintf("… more not loaded: enter loads (%d hidden)", r.hidden)
	}
	return "… more"
}

// rightView renders the right pane: the form when open, else the entry
// with its body scrolled by K/J or the wheel.
func (m Model) rightView() string {
	w, h := m.entryWidth(), m.height
	if m.editor.Open() {
		return m.editor.View()
	}
	if m.searching() {
		return m.search.View()
	}
	if m.reader.Reading() {
		return m.reader.View()
	}
	title, body := m.entryLines(m.entryInner())
	rows := m.entryRows()
	off := widgets.ClampOffset(m.pane.off, rows, len(body))
	box := m.styles.Pane
	switch {
	case len(body) > rows:
		pos := fmt.Sprintf("%d-%d of %d lines · %s/%s scroll · %s read", off+1, min(off+rows, len(body)), len(body), views.KeyName(m.keys.ScrollUp), views.KeyName(m.keys.ScrollDown), views.KeyName(m.keys.Read))
		title = widgets.Spread(title, m.styles.Muted.Render(pos), m.entryInner())
	}
	lines := []string{title}
	for i := off; i < min(off+rows, len(body)); i++ {
		lines = append(lines, body[i])
	}
	return widgets.Pane(box, strings.Join(lines, "\n"), w, h)
}

// entryRows is how many body lines the entry pane shows.
func (m Model) entryRows() int { return max(m.innerHeight()-1, 1) }

// scrollEntry scrolls the entry pane by delta lines, within its body.
func (m *Model) scrollEntry(delta int) {
	_, body := m.entryLines(m.entryInner())
	m.pane.off = widgets.ClampOffset(m.pane.off+delta, m.entryRows(), len(body))
}
