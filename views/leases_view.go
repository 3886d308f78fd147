package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/themes"
)

// leasesNote is said plainly under the table: what one look cannot show.
const leasesNote = "A released or expired lease leaves no trace: one re-acquired over and over shows only as a new stamp at each look."

// Layout: the table on top; under it the selected row (or the acquire
// form) on the left and the cron schedules on the right.
func (m Leases) bottomHeight() int { return min(max(m.height*2/5, 8), 14) }
func (m Leases) tableHeight() int  { return max(m.height-m.bottomHeight(), 5) }
func (m Leases) detailWidth() int  { return m.width * 3 / 5 }
func (m Leases) detailInner() int {
	return m.detailWidth() - m.styles.Pane.GetHorizontalFrameSize()
}

// tableRows is how many rows the table shows: the pane less its frame,
// the title, the header, the footer and the note.
func (m Leases) tableRows() int {
	return max(m.tableHeight()-m.styles.Pane.GetVerticalFrameSize()-4, 1)
}

// leaseColumns are the table's columns; the bar takes the spare room; the
// stamp, the age, the kind and the holder give way on narrow screens (the
// selected row's detail shows them all).
var leaseColumns = []tableColumn{
	{title: "", width: 3}, {title: "KIND", width: 5, drop: 3}, {title: "CLASS/SCHED", width: 12},
	{title: "ID/BUCKET", width: 16}, {title: "HOLDER", width: 12, drop: 4}, {title: "STAMP", width: 20, drop: 1},
	{title: "TIME LEFT", width: 0}, {title: "", width: 6}, {title: "STATE", width: 15}, {title: "AGE", width: 5, drop: 2},
}

// View renders the table, the selected row and the cron schedules.
func (m Leases) View() string {
	if m.width < 40 || m.height < 12 {
		return "window too small"
	}
	bottom := lipgloss.JoinHorizontal(lipgloss.Top, m.detailView(), m.cronView())
	return lipgloss.JoinVertical(lipgloss.Left, m.tableView(), bottom)
}

// tableView renders the top pane.
func (m Leases) tableView() string {
	st := m.styles
	w := m.width - st.Pane.GetHorizontalFrameSize()
	box := st.Pane
	if m.focused && m.form == nil {
		box = st.PaneFocused
	}
	lines := []string{spread(st.PaneTitle.Render("LEASES")+"  "+m.summary(), m.position(), w)}
	switch {
	case m.err != nil:
		lines = append(lines, proseLines("✗ "+m.err.Error(), st.Error, w)...)
	case !m.loaded:
		lines = append(lines, st.Muted.Render("loading…"))
	default:
		lines = append(lines, m.rowLines(w)...)
	}
	for len(lines) < m.tableRows()+2 {
		lines = append(lines, "")
	}
	lines = append(lines[:m.tableRows()+2], m.footer(), st.Muted.Render(leasesNote))
	return Pane(box, strings.Join(lines, "\n"), m.width, m.tableHeight())
}

// summary counts the rows by kind and state at now.
func (m Leases) summary() string {
	now := m.deps.Now()
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
	st := m.styles
	return st.Muted.Render(fmt.Sprintf("%d lease(s) · %d cron row(s) · ", leases, cron)) +
		st.OK.Render(fmt.Sprintf("%d held", states[coord.LeaseHeld])) + st.Muted.Render(" · ") +
		st.Warn.Render(fmt.Sprintf("%d expiring", states[coord.LeaseExpiring])) + st.Muted.Render(" · ") +
		st.Error.Render(fmt.Sprintf("%d expired-unswept", states[coord.LeaseExpired]))
}

// position is "3/12" and the sort order.
func (m Leases) position() string {
	order := "by key"
	if m.byLeft {
		order = "by time left"
	}
	n := len(m.visible())
	pos := "0/0"
	if n > 0 {
		pos = fmt.Sprintf("%d/%d", m.list.cur+1, n)
	}
	return m.styles.Muted.Render(pos + " · sorted " + order)
}

// footer shows the filter input or the filter in force.
func (m Leases) footer() string {
	switch {
	case m.filtering:
		return m.filterIn.View()
	case m.filter != "":
		return m.styles.Accent.Render("/"+m.filter) + m.styles.Muted.Render(" (esc clears)")
	}
	return ""
}

// rowLines renders the header and the visible rows.
func (m Leases) rowLines(w int) []string {
	vis := m.visible()
	t := newColumnTable(leaseColumns, w)
	out := []string{t.header(m.styles)}
	if len(vis) == 0 {
		text := "No leases and no cron tick rows: nothing is held right now."
		if m.filter != "" {
			text = "Nothing matches /" + m.filter + "."
		}
		return append(out, m.styles.Muted.Render(text))
	}
	from, to := m.list.window(len(vis), m.tableRows())
	for i := from; i < to; i++ {
		out = append(out, t.row(m.styles, m.leaseCells(vis[i], i == m.list.cur, t.flexW), i == m.list.cur, m.focused && m.form == nil))
	}
	return out
}

// leaseCells are one row's cells at now.
func (m Leases) leaseCells(r coord.LeaseRow, selected bool, barW int) []line {
	st := m.styles
	now := m.deps.Now()
	state := leaseStateAt(r, now)
	id := clipText(r.ID, 16)
	if r.Kind == coord.KindCron {
		id = tableTime(r.Bucket)
	}
	mark := gutter(selected)
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
	return []line{
		{{mark, st.Accent}, {findingMark(m.finds[codec.Format(r.Key)]), findingStyle(st, m.finds[codec.Format(r.Key)])}},
		{{r.Kind, st.Muted}},
		{{clipText(r.Name, 12), nameStyle}},
		{{id, nameStyle}},
		{{clipText(r.Holder, 12), st.Text}},
		{{r.Versionstamp, st.Muted}},
		m.leaseBar(r, state, now, barW),
		{{leftText(r, now), stateStyle}},
		{{stateText, stateStyle}},
		{{ageText(r, now), st.Muted}},
	}
}

// leaseBar is the time-to-expiry bar of a row.
func (m Leases) leaseBar(r coord.LeaseRow, state coord.LeaseState, now int64, w int) line {
	st := m.styles
	switch {
	case r.ExpiresAt == nil:
		return line{{"never lapses", st.Error}}
	case r.TTLMs <= 0 && state != coord.LeaseExpired:
		return line{{"more than the default TTL left", st.Muted}}
	}
	return shareBar(*r.ExpiresAt-now, r.TTLMs, w, leaseStateStyle(m, state), st.Muted)
}

// leaseStateStyle is the colour of a state.
func leaseStateStyle(m Leases, s coord.LeaseState) lipgloss.Style {
	switch s {
	case coord.LeaseExpiring:
		return m.styles.Warn
	case coord.LeaseExpired:
		return m.styles.Error
	}
	return m.styles.OK
}

// leaseStateAt is a row's state at now (the loaded state ages between
// loads; the table must not).
func leaseStateAt(r coord.LeaseRow, now int64) coord.LeaseState {
	if r.ExpiresAt == nil {
		return coord.LeaseHeld
	}
	left := *r.ExpiresAt - now
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
	left := *r.ExpiresAt - now
	if left <= 0 {
		return "-" + human(msDur(-left))
	}
	return human(msDur(left))
}

// ageText is how long ago the row was written, when its TTL is known.
func ageText(r coord.LeaseRow, now int64) string {
	if r.ExpiresAt == nil || r.TTLMs <= 0 {
		return "–"
	}
	return human(msDur(max(now-(*r.ExpiresAt-r.TTLMs), 0)))
}

// findingMark is a one-cell sign of the worst finding of a row.
func findingMark(fs []coord.Finding) string {
	if len(fs) == 0 {
		return " "
	}
	return severityMark(worstSeverity(fs))
}

// findingStyle is the style of the worst finding of a row.
func findingStyle(st themes.Styles, fs []coord.Finding) lipgloss.Style {
	return severityStyle(st, worstSeverity(fs))
}
