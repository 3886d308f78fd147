package leases

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/themes"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// leasesNote is said plainly under the table: what one look cannot show.
const leasesNote = "A released or expired lease leaves no trace: one re-acquired over and over shows only as a new stamp at each look."

// Layout: the table on top; under it the selected row (or the acquire
// form) on the left and the cron schedules on the right. On a short
// screen the note under the table and the hint under the selected row
// fold away, then the bottom panes shrink, before the table shows fewer
// than coordkit.MinRows rows.
func (m Model) bottomHeight() int {
	b := min(max(m.Height*2/5, 8), 14)
	if m.Form != nil || !m.compact() {
		return b
	}
	return max(min(b, m.Height-m.Styles.Pane.GetVerticalFrameSize()-3-coordkit.MinRows), 5)
}
func (m Model) tableHeight() int { return max(m.Height-m.bottomHeight(), 5) }

// compact is a screen too short for the table's rows, its note and the
// selected row's hint: the note and the hint fold away.
func (m Model) compact() bool {
	full := min(max(m.Height*2/5, 8), 14)
	return m.Height-full-m.Styles.Pane.GetVerticalFrameSize()-4 < coordkit.MinRows
}
func (m Model) detailWidth() int { return m.Width * 3 / 5 }
func (m Model) detailInner() int {
	return m.detailWidth() - m.Styles.Pane.GetHorizontalFrameSize()
}

// tableRows is how many rows the table shows: the pane less its frame,
// the title, the header, the footer and the note.
func (m Model) tableRows() int {
	fixed := 4
	if m.compact() {
		fixed = 3 // the note folded
	}
	return max(m.tableHeight()-m.Styles.Pane.GetVerticalFrameSize()-fixed, 1)
}

// leaseColumns are the table's columns; the bar takes the spare room; the
// stamp and the age give way on narrow screens (the selected row's
// detail shows them all). The kind and the holder never do: "who holds
// it" is the first question, and a lease row must not pass for a cron
// row; where they and the bar do not fit, narrowColumns lay the table
// out instead.
//
// Columns are fitted to the rows shown (widgets.FitTable): STATE and the
// times shrink to their text, and the id, the holder and the class widen
// into the room that frees, as far as the bar keeps its minimum: they are
// what tells rows apart.
var leaseColumns = []widgets.Column{
	{Title: "", Width: 3}, {Title: "KIND", Width: 5, Drop: 4}, {Title: "CLASS/SCHED", Width: 12, Grow: true, Max: 20},
	{Title: "ID/BUCKET", Width: 18, Grow: true, Max: 32, Middle: true}, {Title: "HOLDER", Width: 12, Drop: 3, Grow: true, Max: 36, Middle: true},
	{Title: "STAMP", Width: 20, Drop: 1},
	{Title: "TIME LEFT", Width: 0}, {Title: "", Width: 9, Keep: true}, {Title: "STATE", Width: 15}, {Title: "AGE", Width: 5, Drop: 2, Keep: true},
}

// narrowColumns are the columns of a table too narrow for leaseColumns
// with its kind and holder: the bar goes first (the time left says it in
// words), then the state (the time left's colour and the detail say it),
// and the id takes the room left, cut in its middle.
var narrowColumns = []widgets.Column{
	{Title: "", Width: 3}, {Title: "KIND", Width: 5}, {Title: "CLASS/SCHED", Width: 12, Grow: true, Max: 20},
	{Title: "ID/BUCKET", Width: 0, Min: 17, Middle: true}, {Title: "HOLDER", Width: 9, Middle: true},
	{Title: "STAMP", Width: 20, Drop: 2},
	{Title: "", Width: 9, Keep: true, Drop: 1}, {Title: "TIME LEFT", Width: 10, Keep: true}, {Title: "STATE", Width: 15, Drop: 4}, {Title: "AGE", Width: 5, Drop: 3, Keep: true},
}

// Column indexes shared by leaseColumns and narrowColumns.
const (
	colKind   = 1
	colHolder = 4
	colBar    = 6
)

// leaseTable fits the columns to w and the rows' cells: leaseColumns
// while they keep the kind and the holder, else narrowColumns.
func leaseTable(w int, cells [][]widgets.Line) widgets.Table {
	t := widgets.FitTable(leaseColumns, w, cells)
	if t.Width(colKind) > 0 && t.Width(colHolder) > 0 {
		return t
	}
	return widgets.FitTable(narrowColumns, w, cells)
}

// View renders the table, the selected row and the cron schedules.
func (m Model) View() string {
	if v, ok := m.Cover(40, 12); ok {
		return v
	}
	bottom := lipgloss.JoinHorizontal(lipgloss.Top, m.detailView(), m.cronView())
	return lipgloss.JoinVertical(lipgloss.Left, m.tableView(), bottom)
}

// tableView renders the top pane.
func (m Model) tableView() string {
	st := m.Styles
	w := m.Width - st.Pane.GetHorizontalFrameSize()
	box := widgets.PaneBox(st, m.Focused && m.Form == nil)
	lines := []string{widgets.Spread(st.PaneTitle.Render("LEASES")+"  "+m.summary(), m.position(), w)}
	if unready := m.Unready(w); unready != nil {
		lines = append(lines, unready...)
	} else {
		lines = append(lines, m.rowLines(w)...)
	}
	for len(lines) < m.tableRows()+2 {
		lines = append(lines, "")
	}
	lines = append(lines[:m.tableRows()+2], m.footer())
	if !m.compact() {
		lines = append(lines, st.Muted.Render(leasesNote))
	}
	return widgets.Pane(box, strings.Join(lines, "\n"), m.Width, m.tableHeight())
}

// summary counts the rows by kind and state at now.
func (m Model) summary() string {
	now := m.Deps.Now()
	var leases, cron int
	states := map[coord.LeaseState]int{}
	for _, r := range m.rows {
		if r.Kind == coord.KindCron {
			cron++
		} else {
			leases++
		}
		states[leaseStateAt(r, now)]++
	}
	st := m.Styles
	return st.Muted.Render(fmt.Sprintf("%d lease(s) · %d cron row(s) · ", leases, cron)) +
		st.OK.Render(fmt.Sprintf("%d held", states[coord.LeaseHeld])) + st.Muted.Render(" · ") +
		st.Warn.Render(fmt.Sprintf("%d expiring", states[coord.LeaseExpiring])) + st.Muted.Render(" · ") +
		st.Error.Render(fmt.Sprintf("%d expired-unswept", states[coord.LeaseExpired]))
}

// position is "3/12" and the sort order.
func (m Model) position() string {
	order := "by key"
	if m.byLeft {
		order = "by time left"
	}
	n := len(m.visible())
	pos := "0/0"
	if n > 0 {
		pos = fmt.Sprintf("%d/%d", m.list.Cur+1, n)
	}
	return m.Styles.Muted.Render(pos + " · sorted " + order)
}

// footer shows the filter input or the filter in force, else the churn
// chart.
func (m Model) footer() string {
	if f := m.filter.View(); f != "" {
		return f
	}
	return m.churnLine(m.Width - m.Styles.Pane.GetHorizontalFrameSize())
}

// rowLines renders the header and the visible rows.
func (m Model) rowLines(w int) []string {
	vis := m.visible()
	from, to := m.list.Window(len(vis), m.tableRows())
	// Fitted to every row, not the window: columns fitted to the rows on
	// screen moved as the table scrolled.
	cells := make([][]widgets.Line, 0, len(vis))
	for i := range vis {
		cells = append(cells, m.leaseCells(vis[i], i == m.list.Cur, 0))
	}
	t := leaseTable(w, cells)
	out := []string{t.Header(m.Styles)}
	if len(vis) == 0 {
		text := "No leases and no cron tick rows: nothing is held right now."
		if m.filter.Text() != "" {
			text = m.filter.Nothing()
		}
		return append(out, m.Styles.Muted.Render(text))
	}
	for i := from; i < to; i++ {
		out = append(out, t.Row(m.Styles, m.leaseCells(vis[i], i == m.list.Cur, t.Width(colBar)), i == m.list.Cur, m.Focused && m.Form == nil))
	}
	return out
}

// leaseCells are one row's cells at now.
func (m Model) leaseCells(r coord.LeaseRow, selected bool, barW int) []widgets.Line {
	st := m.Styles
	now := m.Deps.Now()
	state := leaseStateAt(r, now)
	id := widgets.Sanitize(r.ID)
	if r.Kind == coord.KindCron {
		id = widgets.TableTimeCell(r.Bucket)
	}
	mark := widgets.Gutter(selected)
	if l, ok := m.mine[codec.Format(r.Key)]; ok && l.Versionstamp == r.Versionstamp {
		mark += "★"
	} else {
		mark += " "
	}
	stateText, stateStyle := string(state), leaseStateStyle(m, state)
	switch {
	case r.Problem != "":
		stateText, stateStyle = "malformed", st.Warn
	case r.ExpiresAt == nil:
		stateText, stateStyle = "no expiry", st.Error
	}
	nameStyle := st.Text
	if state == coord.LeaseExpired {
		nameStyle = st.Expired
	}
	return []widgets.Line{
		{{Text: mark, Style: st.Accent}, {Text: findingMark(m.finds.Of(r.Key)), Style: findingStyle(st, m.finds.Of(r.Key))}},
		{{Text: r.Kind, Style: st.Muted}},
		{{Text: widgets.Sanitize(r.Name), Style: nameStyle}},
		{{Text: id, Style: nameStyle}},
		{{Text: widgets.Sanitize(r.Holder), Style: st.Text}},
		{{Text: r.Versionstamp, Style: st.Muted}},
		m.leaseBar(r, state, now, barW),
		{{Text: leftText(r, now), Style: stateStyle}},
		{{Text: stateText, Style: stateStyle}},
		{{Text: ageText(r, now), Style: st.Muted}},
	}
}

// leaseBar is the time-to-expiry bar of a row.
func (m Model) leaseBar(r coord.LeaseRow, state coord.LeaseState, now int64, w int) widgets.Line {
	st := m.Styles
	switch {
	case r.ExpiresAt == nil:
		return widgets.Line{{Text: "never lapses", Style: st.Error}}
	case r.TTLMs <= 0 && state != coord.LeaseExpired:
		return widgets.Line{{Text: "more than the default TTL left", Style: st.Muted}}
	}
	return widgets.ShareBar(*r.ExpiresAt-now, r.TTLMs, w, leaseStateStyle(m, state), st.Muted)
}

// leaseStateStyle is the colour of a state.
func leaseStateStyle(m Model, s coord.LeaseState) lipgloss.Style {
	switch s {
	case coord.LeaseExpiring:
		return m.Styles.Warn
	case coord.LeaseExpired:
		return m.Styles.Error
	case coord.LeaseHeld:
	}
	return m.Styles.OK
}

// leaseStateAt is a row's state at now (the loaded state ages between
// loads; the table must not).
func leaseStateAt(r coord.LeaseRow, now int64) coord.LeaseState {
	if r.ExpiresAt == nil {
		return coord.LeaseHeld
	}
	left := widgets.MsUntil(*r.ExpiresAt, now).Milliseconds() // saturated: no wrap at the int64 ends
	switch {
	case left <= 0:
		return coord.LeaseExpired
	case r.TTLMs > 0 && float64(left) <= coord.ExpiringShare*float64(r.TTLMs):
		return coord.LeaseExpiring
	}
	return coord.LeaseHeld
}

// leftText is the time left, or how long ago the row expired.
func leftText(r coord.LeaseRow, now int64) string {
	if r.ExpiresAt == nil {
		return "∞"
	}
	left := widgets.MsUntil(*r.ExpiresAt, now)
	if left <= 0 {
		// Expired: no time is left; say how long ago instead of a
		// negative time left.
		return widgets.Human(-left) + " ago"
	}
	return widgets.Human(left)
}

// ageText is how long ago the row was written, when its TTL is known.
func ageText(r coord.LeaseRow, now int64) string {
	if r.ExpiresAt == nil || r.TTLMs <= 0 {
		return "–"
	}
	return widgets.Human(widgets.MsDur(max(now-(*r.ExpiresAt-r.TTLMs), 0)))
}

// findingMark is a one-cell sign of the worst finding of a row.
func findingMark(fs []coord.Finding) string {
	if len(fs) == 0 {
		return " "
	}
	return coordkit.SeverityMark(coordkit.WorstSeverity(fs))
}

// findingStyle is the style of the worst finding of a row.
func findingStyle(st themes.Styles, fs []coord.Finding) lipgloss.Style {
	return coordkit.SeverityStyle(st, coordkit.WorstSeverity(fs))
}
