package widgets

import (
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/themes"
)

// TestColumnTable: columns give way in their drop order, and the
// flexible one takes the rest.
func TestColumnTable(t *testing.T) {
	cols := []Column{{Title: "A", Width: 4}, {Title: "B", Width: 6, Drop: 2}, {Title: "C", Width: 0}, {Title: "D", Width: 6, Drop: 1}}
	for _, c := range []struct {
		w     int
		show  []bool
		flexW int
	}{
		{40, []bool{true, true, true, true}, 21},
		{30, []bool{true, true, true, true}, 11},
		{26, []bool{true, true, true, false}, 14},
		{18, []bool{true, false, true, false}, 13},
		{6, []bool{true, false, true, false}, 1},
	} {
		tb := NewTable(cols, c.w)
		if !reflect.DeepEqual(tb.show, c.show) || tb.FlexW != c.flexW {
			t.Errorf("width %d: show %v flex %d, want %v %d", c.w, tb.show, tb.FlexW, c.show, c.flexW)
		}
	}
}

// TestFitTable: a fixed column shrinks to its content, a Grow column takes
// the room it frees (up to Max) while the flexible one keeps its minimum,
// and a Middle column keeps both ends of a long id (bug 6: ids
// cut to identical prefixes while STATE had spare room).
func TestFitTable(t *testing.T) {
	cols := []Column{{Title: "ID", Width: 8, Grow: true, Max: 20, Middle: true}, {Title: "BAR", Width: 0}, {Title: "STATE", Width: 15}}
	rows := [][]Line{
		{{{Text: "7d3f0a1e-0000-4b1c-0001"}}, {{Text: "##"}}, {{Text: "held"}}},
		{{{Text: "7d3f0a1e-0000-4b1c-0002"}}, {{Text: "##"}}, {{Text: "held"}}},
	}
	tb := FitTable(cols, 40, rows)
	if got := []int{tb.widthOf(0), tb.FlexW, tb.widthOf(2)}; !reflect.DeepEqual(got, []int{20, 13, 5}) {
		t.Fatalf("widths %v, want ID 20 (its max), bar 13, STATE 5 (its title)", got)
	}
	st := themes.NewStyles(themes.Mono())
	a, b := tb.Row(st, rows[0], false, false), tb.Row(st, rows[1], false, false)
	if a == b || !strings.HasPrefix(a, "7d3f0a1e-…-4b1c-0001") {
		t.Fatalf("rows do not keep the ids' ends:\n%q\n%q", a, b)
	}
	// Narrow: the flexible column keeps tableFlexMin; ID grows only into
	// what is left.
	tb = FitTable(cols, 24, rows)
	if tb.FlexW < tableFlexMin || tb.widthOf(0)+tb.FlexW+tb.widthOf(2)+2 != 24 {
		t.Fatalf("narrow widths: ID %d, bar %d, STATE %d", tb.widthOf(0), tb.FlexW, tb.widthOf(2))
	}
}

// TestTableTimeKeepsItsWidth: in a cell, a time with milliseconds and one
// without
// are as wide (a column of times jumped when trailing zeros dropped:
// issue 13 bug 8).
func TestTableTimeKeepsItsWidth(t *testing.T) {
	a, b := TableTimeCell(1767311999500), TableTimeCell(1767312015000)
	if len(a) != len(b) || strings.TrimSpace(b) != "01-02 00:00:15" {
		t.Fatalf("%q and %q", a, b)
	}
}

// TestShortTimeCellKeepsItsWidth: the Activity tab's SEEN column (then
// ShortTime) kept dropping trailing zeros of the milliseconds
// ("11:05:51.77") and
// the day's padding, so the column jumped (bug 8).
func TestShortTimeCellKeepsItsWidth(t *testing.T) {
	const now = 1767312015000 // 2026-01-02T00:00:15Z
	for _, c := range []struct {
		ms   int64
		want string
	}{
		{now, "00:00:15.000"},
		{now - 230, "00:00:14.770"},
		{now - 9, "00:00:14.991"},
		{now - 86_400_000, "Jan  1 00:00:15.000"},
		{now + 9*86_400_000 + 120, "Jan 11 00:00:15.120"},
	} {
		if got := ShortTimeCell(c.ms, now); got != c.want {
			t.Errorf("ShortTimeCell(%d) = %q, want %q", c.ms, got, c.want)
		}
	}
}

// TestTableSqueeze: when nothing is left to drop and the columns are
// still too wide, an id (a Middle column) narrows rather than the row
// running off its end and cutting the column after it to nothing; a
// flexible column that may be dropped goes first.
func TestTableSqueeze(t *testing.T) {
	cols := []Column{{Title: "", Width: 3}, {Title: "ID", Width: 18, Middle: true}, {Title: "DUE", Width: 11},
		{Title: "ATT", Width: 3, Drop: 2}, {Title: "BODY", Width: 0, Drop: 3}}
	tb := NewTable(cols, 29)
	if got := []int{tb.Width(0), tb.Width(1), tb.Width(2), tb.Width(3), tb.Width(4)}; !reflect.DeepEqual(got, []int{3, 13, 11, 0, 0}) {
		t.Fatalf("widths %v, want [3 13 11 0 0]: BODY and ATT dropped, ID narrowed", got)
	}
	st := themes.NewStyles(themes.Mono())
	row := tb.Row(st, []Line{{{Text: "❯"}}, {{Text: "61908e2d-73d1-4ec9-b47e-47b8cda6c266"}}, {{Text: "ready 914ms"}}, {{Text: "0"}}, {{Text: "{}"}}}, false, false)
	if !strings.HasSuffix(row, "ready 914ms") || ansi.StringWidth(row) > 29 {
		t.Fatalf("the row %q cuts DUE or is wider than 29", row)
	}
	if cols[1].Width != 18 {
		t.Fatalf("NewTable changed its caller's columns")
	}
	// A flexible column that is not dropped keeps a cell.
	tb = NewTable([]Column{{Title: "ID", Width: 20, Middle: true}, {Title: "DUE", Width: 11}, {Title: "B", Width: 0}}, 30)
	if tb.Width(0)+tb.Width(1)+tb.FlexW+2 != 30 || tb.FlexW != 1 {
		t.Fatalf("widths ID %d DUE %d flex %d in 30", tb.Width(0), tb.Width(1), tb.FlexW)
	}
}
