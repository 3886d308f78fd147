package widgets

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/themes"
)

// Column is one column of a Table: its title, its width in
// cells, and when it is left out of a table too narrow for it: drop 0
// never, else in order of drop (1 first). A width of 0 marks the flexible
// column, which takes the room the others leave (at least tableFlexMin
// cells).
type Column struct {
	Title string
	Width int
	Drop  int
	// Grow (with FitTable) lets the column widen to its content, up to
	// Max cells, before the flexible column gets spare room: for what
	// tells rows apart (ids, holders).
	Grow bool
	Max  int
	// Middle cuts a value too long for the column in its middle, keeping
	// both ends: ids that share a prefix differ at their end.
	Middle bool
	// Right aligns the column's values (and title) to its right edge:
	// figures.
	Right bool
	// Keep keeps a fixed column at its width in FitTable even when its
	// content is narrower: for values that change every second (time
	// left, age), so that the columns do not jump.
	Keep bool
	// Min is the flexible column's minimum before optional columns are
	// dropped (tableFlexMin when smaller); FitTable lowers it to the
	// column's content.
	Min int
}

// tableFlexMin is the narrowest a flexible column gets before optional
// columns are dropped.
const tableFlexMin = 8

// Table lays columns out in a given width.
type Table struct {
	cols  []Column
	show  []bool
	FlexW int
}

// NewTable fits cols into w cells, one space between columns, dropping
// columns in their drop order until the flexible one has tableFlexMin (a
// flexible column with a drop rank goes too, in its turn). When the
// columns left are still too wide, the Middle ones (ids, cut in their
// middle, so still telling) narrow to middleColumnMin: the row never
// runs off its end, cutting a column after them to nothing useful
// (a DUE of "rea…").
func NewTable(cols []Column, w int) Table {
	t := Table{cols: cols, show: make([]bool, len(cols))}
	for i := range t.show {
		t.show[i] = true
	}
	flexMin := tableFlexMin
	for _, c := range cols {
		if c.Width == 0 {
			flexMin = max(flexMin, c.Min, ansi.StringWidth(c.Title))
		}
	}
	for {
		used, flexOn := 0, false
		for i, c := range cols {
			if t.show[i] {
				used += c.Width + 1
				flexOn = flexOn || c.Width == 0
			}
		}
		t.FlexW = w - used + 1
		if t.FlexW >= flexMin || !flexOn && t.FlexW >= 0 {
			return t
		}
		next := -1
		for i, c := range cols {
			if t.show[i] && c.Drop > 0 && (next < 0 || c.Drop < cols[next].Drop) {
				next = i
			}
		}
		if next < 0 {
			t.squeeze(flexOn)
			return t
		}
		t.show[next] = false
	}
}

// middleColumnMin is the narrowest a Middle column gets to let the
// columns after it fit: a few characters of each end of an id.
const middleColumnMin = 11

// squeeze narrows the Middle columns shown by what the row lacks (the
// flexible column, when shown, keeps a cell), down to middleColumnMin.
func (t *Table) squeeze(flexOn bool) {
	need := -t.FlexW
	if flexOn {
		need++
	}
	if need <= 0 {
		t.FlexW = max(t.FlexW, 1)
		return
	}
	t.cols = slices.Clone(t.cols)
	for i, c := range t.cols {
		if need > 0 && t.show[i] && c.Middle && c.Width > middleColumnMin {
			take := min(need, c.Width-middleColumnMin)
			t.cols[i].Width -= take
			t.FlexW += take
			need -= take
		}
	}
	t.FlexW = max(t.FlexW, 1)
}

// FitTable is NewTable with widths fitted to the rows that will be drawn:
// a fixed column wider than anything in it (its title included) shrinks
// to that, and a Grow column widens to its content (up to Max) while the
// flexible column keeps at least tableFlexMin, so width goes to what
// tells rows apart, not to a STATE column holding "held".
func FitTable(cols []Column, w int, rows [][]Line) Table {
	natural := make([]int, len(cols))
	for i, c := range cols {
		natural[i] = ansi.StringWidth(c.Title)
	}
	for _, r := range rows {
		for i, cell := range r {
			if i < len(cols) {
				natural[i] = max(natural[i], ansi.StringWidth(cell.Render(true)))
			}
		}
	}
	fitted := make([]Column, len(cols))
	for i, c := range cols {
		fitted[i] = c
		if c.Width > 0 && natural[i] < c.Width && !c.Keep {
			fitted[i].Width = max(natural[i], 1)
		}
		if c.Width == 0 && c.Min > natural[i] {
			fitted[i].Min = natural[i]
		}
	}
	t := NewTable(fitted, w)
	fitted = t.cols // as squeezed
	flexMin := tableFlexMin
	for _, c := range fitted {
		if c.Width == 0 {
			flexMin = max(flexMin, ansi.StringWidth(c.Title), c.Min)
		}
	}
	for i, c := range fitted {
		if !c.Grow || !t.show[i] || natural[i] <= c.Width {
			continue
		}
		more := min(min(natural[i], max(c.Max, c.Width))-c.Width, t.FlexW-flexMin)
		if more > 0 {
			fitted[i].Width += more
			t.FlexW -= more
		}
	}
	t.cols = fitted
	return t
}

// Width is the width column i is drawn at (0 when it was dropped): a
// cell that shortens itself to fit, like KeyCell, is built with it.
func (t Table) Width(i int) int {
	if i < 0 || i >= len(t.cols) || !t.show[i] {
		return 0
	}
	return t.widthOf(i)
}

// widthOf is the width column i is drawn at.
func (t Table) widthOf(i int) int {
	if t.cols[i].Width == 0 {
		return t.FlexW
	}
	return t.cols[i].Width
}

// Header renders the column titles.
func (t Table) Header(st themes.Styles) string {
	cells := make([]Line, len(t.cols))
	for i, c := range t.cols {
		cells[i] = Line{{c.Title, st.Label}}
	}
	return t.Row(st, cells, false, false)
}

// Row renders one row from its cells (one line per column). A selected row
// is drawn plain in the Selected style, so it reads without colour too;
// active says whether the list has the keys (else the row is only bold).
func (t Table) Row(st themes.Styles, cells []Line, selected, active bool) string {
	var b strings.Builder
	first := true
	for i, c := range cells {
		if i >= len(t.cols) || !t.show[i] {
			continue
		}
		if !first {
			b.WriteString(" ")
		}
		first = false
		w := t.widthOf(i)
		if t.cols[i].Middle && ansi.StringWidth(c.Render(true)) > w {
			c = c.CutMiddle(w)
		}
		cell := FitWidth(c.Render(selected), w)
		if t.cols[i].Right {
			cell = PadLeft(c.Render(selected), w)
		}
		b.WriteString(cell)
	}
	switch {
	case selected && active:
		return st.Selected.Render(b.String())
	case selected:
		return st.Bold.Render(b.String())
	}
	return b.String()
}

// PadLeft right-aligns s in w cells (cutting it like FitWidth when it is
// wider).
func PadLeft(s string, w int) string {
	n := ansi.StringWidth(s)
	if n >= w {
		return FitWidth(s, w)
	}
	return strings.Repeat(" ", w-n) + s
}
