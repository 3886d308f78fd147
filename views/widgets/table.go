package widgets

import (
	"strings"

	"kvdeck/themes"
)

// Column is one column of a columnTable: its title, its width in
// cells, and when it is left out of a table too narrow for it: drop 0
// never, else in order of drop (1 first). A width of 0 marks the flexible
// column, which takes the room the others leave (at least tableFlexMin
// cells).
type Column struct {
	Title string
	Width int
	Drop  int
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
// columns in their drop order until the flexible one has tableFlexMin.
func NewTable(cols []Column, w int) Table {
	t := Table{cols: cols, show: make([]bool, len(cols))}
	for i := range t.show {
		t.show[i] = true
	}
	for {
		used := 0
		for i, c := range cols {
			if t.show[i] {
				used += c.Width + 1
			}
		}
		t.FlexW = w - used + 1
		if t.FlexW >= tableFlexMin {
			return t
		}
		next := -1
		for i, c := range cols {
			if t.show[i] && c.Drop > 0 && (next < 0 || c.Drop < cols[next].Drop) {
				next = i
			}
		}
		if next < 0 {
			t.FlexW = max(t.FlexW, 1)
			return t
		}
		t.show[next] = false
	}
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
		b.WriteString(FitWidth(c.Render(selected), t.widthOf(i)))
	}
	switch {
	case selected && active:
		return st.Selected.Render(b.String())
	case selected:
		return st.Bold.Render(b.String())
	}
	return b.String()
}
