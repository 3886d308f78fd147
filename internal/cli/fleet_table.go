package cli

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/internal/usertext"
)

// fleetColumn is a column of a fleet command's text table.
type fleetColumn struct {
	head string
	// min is the width the column starts at (TREND: its twelve rounds),
	// so that it does not widen round after round.
	min int
	// give is when the column gives way to a narrow terminal: the
	// lowest first; 0 never (the store, its status).
	give int
}

// fleetLine is one store's row: a cell per column, and a note (an error
// message) that goes after the last column, or on a terminal below the
// table.
type fleetLine struct {
	store string
	cells []string
	note  string
}

// fleetTable lays out the rows of a fleet command as text. A column is as
// wide as its widest cell so far: widths only grow, so the rows of
// --watch keep their columns from one round to the next. On a terminal
// narrower than the row the columns of least use give way, in their
// give order, rather than wrap.
type fleetTable struct {
	cols   []fleetColumn
	widths []int
}

func newFleetTable(cols []fleetColumn) *fleetTable {
	t := &fleetTable{cols: cols, widths: make([]int, len(cols))}
	for i, c := range cols {
		t.widths[i] = max(ansi.StringWidth(c.head), c.min)
	}
	return t
}

// fleetCells makes cells safe for a terminal (usertext.Sanitize), each
// on one line (a tab or line break would shift the table).
func fleetCells(cells ...string) []string {
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(usertext.Sanitize(c), "\t", `\t`)
	}
	return cells
}

// sanitizeCells is fleetCells joined with tabs, a tabwriter's row.
func sanitizeCells(cells []string) string { return strings.Join(fleetCells(cells...), "\t") }

// grow widens the columns to the lines' cells.
func (t *fleetTable) grow(lines []fleetLine) {
	for _, l := range lines {
		for i, c := range l.cells {
			t.widths[i] = max(t.widths[i], ansi.StringWidth(c))
		}
	}
}

// shown are the columns that fit in width (every one when width is 0):
// those of the lowest give go first.
func (t *fleetTable) shown(width int) []int {
	cols := make([]int, len(t.cols))
	for i := range cols {
		cols[i] = i
	}
	order := slices.Clone(cols)
	slices.SortStableFunc(order, func(a, b int) int { return t.cols[a].give - t.cols[b].give })
	for _, drop := range order {
		if width <= 0 || t.span(cols) <= width {
			break
		}
		if t.cols[drop].give > 0 {
			cols = slices.DeleteFunc(cols, func(i int) bool { return i == drop })
		}
	}
	return cols
}

// span is the width of a row of cols, two spaces between columns.
func (t *fleetTable) span(cols []int) int {
	n := 2 * max(len(cols)-1, 0)
	for _, i := range cols {
		n += t.widths[i]
	}
	return n
}

// hidden names the columns not in cols.
func (t *fleetTable) hidden(cols []int) []string {
	var out []string
	for i, c := range t.cols {
		if !slices.Contains(cols, i) {
			out = append(out, c.head)
		}
	}
	return out
}

// header is the header row of cols.
func (t *fleetTable) header(cols []int) string {
	heads := make([]string, len(t.cols))
	for i, c := range t.cols {
		heads[i] = c.head
	}
	return t.row(heads, cols)
}

// row is cells laid out in cols, padded to the columns' widths, without
// trailing spaces.
func (t *fleetTable) row(cells []string, cols []int) string {
	var b strings.Builder
	for n, i := range cols {
		if n > 0 {
			b.WriteString("  ")
		}
		b.WriteString(cells[i])
		b.WriteString(strings.Repeat(" ", max(t.widths[i]-ansi.StringWidth(cells[i]), 0)))
	}
	return strings.TrimRight(b.String(), " ")
}

// text is the table for a pipe or a file: every column, each row's note
// after its last one (one line per store, whatever its length).
func (t *fleetTable) text(lines []fleetLine) []string {
	t.grow(lines)
	cols := t.shown(0)
	out := []string{t.header(cols)}
	for _, l := range lines {
		out = append(out, withNote(t.row(l.cells, cols), l.note))
	}
	return out
}

// withNote is a row with its note after it.
func withNote(row, note string) string {
	if note == "" {
		return row
	}
	return row + "  " + usertext.Sanitize(note)
}

// fitted is the table for a terminal width columns wide: the columns
// that fit, the notes below it (each store's, in full: the terminal
// wraps them), and which columns a wider terminal would show.
func (t *fleetTable) fitted(lines []fleetLine, width int) []string {
	t.grow(lines)
	cols := t.shown(width)
	out := []string{t.header(cols)}
	for _, l := range lines {
		out = append(out, t.row(l.cells, cols))
	}
	if notes := fleetNotes(lines); len(notes) > 0 {
		out = append(append(out, ""), notes...)
	}
	if h := t.hidden(cols); len(h) > 0 {
		out = append(out, "not shown (a wider terminal shows them): "+strings.Join(h, ", "))
	}
	return out
}

// fleetNotes are the lines' notes, one line each: "store: note".
func fleetNotes(lines []fleetLine) []string {
	var out []string
	for _, l := range lines {
		if l.note != "" {
			out = append(out, usertext.Sanitize(l.store+": "+l.note))
		}
	}
	return out
}

// screen is one round of --watch on a terminal of width x height: the
// title, the columns that fit, the notes cut to the width, what a wider
// terminal would show, foot; every line cut to the width and, when the
// terminal is short, the rows that do not fit counted on the last line.
// A line never reaches the last row of the terminal (writing there
// would scroll the screen).
func (t *fleetTable) screen(title string, lines []fleetLine, foot []string, width, height int) []string {
	t.grow(lines)
	cols := t.shown(width)
	out := []string{title, "", t.header(cols)}
	for _, l := range lines {
		out = append(out, t.row(l.cells, cols))
	}
	var more []string
	if notes := fleetNotes(lines); len(notes) > 0 {
		more = append(append(more, ""), notes...)
	}
	if h := t.hidden(cols); len(h) > 0 {
		more = append(more, "not shown (a wider terminal shows them): "+strings.Join(h, ", "))
	}
	more = append(more, foot...)
	room := max(height-1, 4)
	switch {
	case len(out) > room:
		cut := len(out) - (room - 1)
		out = append(out[:room-1], "… "+plural(int64(cut), "more store")+" (a taller terminal shows them)")
	case len(out)+len(more) > room:
		out = append(out, more[:room-len(out)]...)
	default:
		out = append(out, more...)
	}
	for i, l := range out {
		out[i] = ansi.Truncate(l, width, "…")
	}
	return out
}
