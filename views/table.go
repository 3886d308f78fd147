package views

import (
	"strings"

	"kvdeck/themes"
)

// tableColumn is one column of a columnTable: its title, its width in
// cells, and when it is left out of a table too narrow for it: drop 0
// never, else in order of drop (1 first). A width of 0 marks the flexible
// column, which takes the room the others leave (at least tableFlexMin
// cells).
type tableColumn struct {
	title string
	width int
	drop  int
}

// tableFlexMin is the narrowest a flexible column gets before optional
// columns are dropped.
const tableFlexMin = 8

// columnTable lays columns out in a given width.
type columnTable struct {
	cols  []tableColumn
	show  []bool
	flexW int
}

// newColumnTable fits cols into w cells, one space between columns, dropping
// columns in their drop order until the flexible one has tableFlexMin.
func newColumnTable(cols []tableColumn, w int) columnTable {
	t := columnTable{cols: cols, show: make([]bool, len(cols))}
	for i := range t.show {
		t.show[i] = true
	}
	for {
		used := 0
		for i, c := range cols {
			if t.show[i] {
				used += c.width + 1
			}
		}
		t.flexW = w - used + 1
		if t.flexW >= tableFlexMin {
			return t
		}
		next := -1
		for i, c := range cols {
			if t.show[i] && c.drop > 0 && (next < 0 || c.drop < cols[next].drop) {
				next = i
			}
		}
		if next < 0 {
			t.flexW = max(t.flexW, 1)
			return t
		}
		t.show[next] = false
	}
}

// widthOf is the width column i is drawn at.
func (t columnTable) widthOf(i int) int {
	if t.cols[i].width == 0 {
		return t.flexW
	}
	return t.cols[i].width
}

// header renders the column titles.
func (t columnTable) header(st themes.Styles) string {
	cells := make([]line, len(t.cols))
	for i, c := range t.cols {
		cells[i] = line{{c.title, st.Label}}
	}
	return t.row(st, cells, false, false)
}

// row renders one row from its cells (one line per column). A selected row
// is drawn plain in the Selected style, so it reads without colour too;
// active says whether the list has the keys (else the row is only bold).
func (t columnTable) row(st themes.Styles, cells []line, selected, active bool) string {
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
		b.WriteString(FitWidth(c.render(selected), t.widthOf(i)))
	}
	switch {
	case selected && active:
		return st.Selected.Render(b.String())
	case selected:
		return st.Bold.Render(b.String())
	}
	return b.String()
}
