package fleet

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/views/widgets"
)

// sortKey orders the rows.
type sortKey int

const (
	byName sortKey = iota
	byTrouble
	byRate
	byReady
	byOverdue
	numSorts
)

func (k sortKey) String() string {
	return [...]string{"name", "trouble", "commits/s", "ready messages", "overdue alarms"}[k]
}

// trouble ranks a row for byTrouble: unreachable first, then by findings.
func (r *row) trouble() int {
	if r.err != nil {
		return 1 << 30
	}
	return r.pulse.FindingErrors<<16 + r.pulse.Findings
}

// visible are the rows that pass the filter, in the sort's order.
func (m Model) visible() []*row {
	now := m.deps.Wall()
	var out []*row
	for _, name := range m.names {
		r := m.rows[name]
		if m.filter.Match(r.saved.Name + " " + r.saved.Group + " " + r.state(now)) {
			out = append(out, r)
		}
	}
	rate := func(r *row) float64 {
		if r.rate == nil {
			return -1
		}
		return *r.rate
	}
	slices.SortStableFunc(out, func(a, b *row) int {
		switch m.sortBy {
		case byTrouble:
			return cmp.Compare(b.trouble(), a.trouble())
		case byRate:
			return cmp.Compare(rate(b), rate(a))
		case byReady:
			return cmp.Compare(b.pulse.QueueReady, a.pulse.QueueReady)
		case byOverdue:
			return cmp.Compare(b.pulse.AlarmsOverdue, a.pulse.AlarmsOverdue)
		case byName, numSorts:
		}
		return 0 // names are listed in order
	})
	return out
}

// The name column: a gutter of three cells (› selected, ● the store the
// tabs show), at least nameMin cells for the name before a column goes (fewer,
// down to 8, when nothing is left to drop).
const (
	gutter  = 3
	nameMin = 12
)

// column is one column of the table: its title, width, and the rank in
// which it is dropped when the screen is narrow (higher goes first).
type column struct {
	title string
	w     int
	drop  int
	cell  func(r *row, st string) string
}

// columns are the table's columns in screen order.
func (m Model) columns() []column {
	spark := func(s widgets.Series) string {
		return widgets.Sparkline(s.Values(), trendLen/2, lipgloss.NewStyle()).Text
	}
	cols := []column{
		{"GROUP", 8, 5, func(r *row, _ string) string { return dash(r.saved.Group) }},
		{"STATE", 14, 0, func(r *row, st string) string { return m.stateCell(r, st) }},
		{"SEQ", 8, 7, func(r *row, _ string) string {
			if r.pulse.Seq == nil {
				return "-"
			}
			return fmt.Sprint(*r.pulse.Seq)
		}},
		{"COMMIT/S", 8, 1, func(r *row, _ string) string {
			if r.rate == nil {
				return "-"
			}
			return fmt.Sprintf("%.1f", *r.rate)
		}},
		{"TREND", trendLen / 2, 2, func(r *row, _ string) string { return spark(r.rates) }},
		{"ROWS", 7, 3, func(r *row, _ string) string { return r.pulse.RowsText() }},
		{"LEASES h/e/x", 12, 4, func(r *row, _ string) string {
			p := r.pulse
			return fmt.Sprintf("%d/%d/%d", p.LeasesHeld, p.LeasesExpiring, p.LeasesExpired)
		}},
		{"OVERDUE", 8, 0, func(r *row, _ string) string {
			if r.pulse.AlarmsOverdue == 0 {
				return "0"
			}
			return fmt.Sprintf("%d %s", r.pulse.AlarmsOverdue, usertext.ShortMillis(r.pulse.WorstLatenessMs))
		}},
		{"QUEUE r/d/age/fin", 17, 0, func(r *row, _ string) string {
			p := r.pulse
			return fmt.Sprintf("%d/%d/%s/%d", p.QueueReady, p.QueueDelayed, usertext.ShortMillis(p.OldestReadyMs), p.QueueFinal)
		}},
		{"READY~", trendLen / 2, 6, func(r *row, _ string) string { return spark(r.ready) }},
		{"EXPIRED", 7, 3, func(r *row, _ string) string { return r.pulse.ExpiredText() }},
		{"FIND", 5, 0, func(r *row, _ string) string {
			if r.pulse.FindingErrors > 0 {
				return fmt.Sprintf("%d!", r.pulse.Findings)
			}
			return fmt.Sprint(r.pulse.Findings)
		}},
	}
	if m.deps.Platform != nil && slices.ContainsFunc(m.names, func(n string) bool { return m.rows[n].platform != "" }) {
		// Only when a store's entry names a platform to ask.
		cols = append(cols, column{"PLATFORM", 18, 8, func(r *row, _ string) string { return dash(r.platform) }})
	}
	return cols
}

// fitColumns drops columns, highest drop rank first, until the table
// fits in w cells beside a name column of at least nameMin.
func fitColumns(cols []column, w, nameMin int) []column {
	width := func(cs []column) int {
		n := 0
		for _, c := range cs {
			n += c.w + 1
		}
		return n
	}
	for width(cols)+nameMin+gutter > w {
		worst := -1
		for i, c := range cols {
			if c.drop > 0 && (worst < 0 || c.drop > cols[worst].drop) {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		cols = slices.Delete(slices.Clone(cols), worst, worst+1)
	}
	return cols
}

// View draws the view w cells wide and h lines high.
func (m Model) View(w, h int) string {
	st := m.styles
	cols := fitColumns(m.columns(), w, nameMin)
	nameW := w - gutter
	for _, c := range cols {
		nameW -= c.w + 1
	}
	nameW = min(max(nameW, 8), 24)
	rows := m.visible()
	title := st.PaneTitle.Render("FLEET") + st.Muted.Render(fmt.Sprintf(" · %d saved store(s) · one request each per refresh · sorted by %s", len(m.names), m.sortBy))
	lines := []string{widgets.FitWidth(title, w)}
	if f := m.filter.View(); f != "" {
		lines = append(lines, widgets.FitWidth(f, w))
	}
	head := "   " + widgets.FitWidth("STORE", nameW)
	for _, c := range cols {
		head += " " + widgets.FitWidth(c.title, c.w)
	}
	lines = append(lines, st.Label.Render(widgets.FitWidth(head, w)))
	switch {
	case m.listErr != nil:
		lines = append(lines, st.Error.Render(widgets.FitWidth(usertext.Sanitize(m.listErr.Error()), w)))
	case m.listing && len(m.names) == 0:
		lines = append(lines, st.Muted.Render("reading the saved stores…"))
	case len(m.names) == 0:
		lines = append(lines, st.Muted.Render("No saved store: kvdeck stores add NAME URL saves one."))
	case len(rows) == 0:
		lines = append(lines, st.Muted.Render(m.filter.Nothing()))
	}
	page := max(h-len(lines)-2, 1)
	off := max(min(m.cursor-page/2, len(rows)-page), 0)
	for i := off; i < min(off+page, len(rows)); i++ {
		lines = append(lines, m.rowLine(rows[i], i == m.cursor, cols, nameW, w))
	}
	// The selected row's detail on the last line (or why enter opened
	// nothing); the body fills h.
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	if m.note != "" {
		return strings.Join(append(lines, st.Error.Render(widgets.FitWidth(usertext.Sanitize(m.note), w))), "\n")
	}
	lines = append(lines, m.detail(rows, w))
	return strings.Join(lines, "\n")
}

// rowLine draws one row: the figures of its last read (none while the
// first is in flight or when it failed), coloured by its state.
func (m Model) rowLine(r *row, selected bool, cols []column, nameW, w int) string {
	st, state := m.styles, r.state(m.deps.Wall())
	mark := "  "
	if selected {
		mark = "› "
	}
	if r.saved.Name == m.current {
		// The store the tabs show.
		mark = mark[:len(mark)-1] + "●"
	}
	mark += " "
	line := mark + widgets.FitWidth(usertext.Sanitize(r.saved.Name), nameW)
	for _, c := range cols {
		cell := c.cell(r, state)
		if (!r.done || r.err != nil) && c.title != "STATE" && c.title != "GROUP" && c.title != "PLATFORM" {
			cell = ""
		}
		line += " " + widgets.FitWidth(usertext.Sanitize(cell), c.w)
	}
	line = widgets.FitWidth(line, w)
	switch {
	case selected:
		return st.Selected.Render(line)
	case state == "ok":
		return line
	case state == "slow" || state == "reading":
		return st.Warn.Render(line)
	}
	return st.Error.Render(line)
}

// detail is the selected row's last line: its error in full, or its URL
// and round trip.
func (m Model) detail(rows []*row, w int) string {
	if m.cursor >= len(rows) {
		return ""
	}
	r, st := rows[m.cursor], m.styles
	text := usertext.Sanitize(r.saved.Name + ": " + store.RedactURL(r.saved.URL))
	switch {
	case r.err != nil:
		return st.Error.Render(widgets.FitWidth(usertext.Sanitize(r.saved.Name+": "+r.err.Error()), w))
	case r.done:
		text += fmt.Sprintf(" · read in %s", usertext.ShortMillis(r.rtt.Milliseconds()))
		if r.pulse.Estimated {
			text += fmt.Sprintf(" · ~ ROWS and EXPIRED estimated from a sample of %d rows spread over it (kvdeck doctor counts all)", r.pulse.Sampled)
		}
		text += fmt.Sprintf(" · %d finding(s) doctor would report of the ones one statement sees", r.pulse.Findings)
	}
	return st.Muted.Render(widgets.FitWidth(text, w))
}

// stateCell is the STATE column: ✓ and the round trip, ✗ and what is
// wrong, … slow and how long the read has taken.
func (m Model) stateCell(r *row, state string) string {
	switch state {
	case "ok":
		return "✓ " + usertext.ShortMillis(r.rtt.Milliseconds())
	case "slow":
		return "… slow " + usertext.ShortMillis(m.deps.Wall().Sub(r.since).Milliseconds())
	case "reading":
		return "… reading"
	}
	return "✗ " + state
}

// dash is s, "-" when it is empty.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
