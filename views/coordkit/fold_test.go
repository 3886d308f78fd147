package coordkit

import (
	"strings"
	"testing"

	"kvdeck/themes"
	"kvdeck/views/widgets"
)

// TestFolds: the least fold that leaves the list MinRows rows, the chart
// when none does; the footer keeps what did not fold away.
func TestFolds(t *testing.T) {
	for _, c := range []struct {
		rows []int // the list's rows at FoldNone, FoldNote, FoldHint, FoldChart
		want Fold
	}{
		{[]int{MinRows, 9, 9, 9}, FoldNone},
		{[]int{MinRows - 1, MinRows, 9, 9}, FoldNote},
		{[]int{1, 2, MinRows + 3, 9}, FoldHint},
		{[]int{1, 1, 1, 1}, FoldChart},
	} {
		if got := Folds(func(f Fold) int { return c.rows[f] }); got != c.want {
			t.Errorf("rows %v: fold %d, want %d", c.rows, got, c.want)
		}
	}
	st := themes.NewStyles(themes.Dark())
	for f, want := range map[Fold]string{FoldNone: "hint|note", FoldNote: "hint", FoldHint: "", FoldChart: ""} {
		if got := strings.Join(f.Footer(st, "hint", "note", 4), "|"); got != want {
			t.Errorf("fold %d: footer %q, want %q", f, got, want)
		}
	}
	var marks widgets.Marks
	if got := Position(st, marks, 2, 7); got != "3/7" {
		t.Errorf("position %q", got)
	}
}
