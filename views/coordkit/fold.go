package coordkit

import (
	"kvdeck/themes"
	"kvdeck/views/widgets"
)

// Fold is how much of a two-list tab's right pane (Alarms, Queues) folds
// away on a short screen so that its item list keeps MinRows rows: the note
// first, then the hint, then the chart above the list
// (Alarms' time line, Queues' attempts histogram).
type Fold int

// The folds, least first.
const (
	FoldNone Fold = iota
	FoldNote
	FoldHint
	FoldChart
)

// Folds is the least fold at which rowsAt leaves the item list MinRows
// rows; FoldChart when none does.
func Folds(rowsAt func(Fold) int) Fold {
	for f := range FoldChart {
		if rowsAt(f) >= MinRows {
			return f
		}
	}
	return FoldChart
}

// Footer is the hint and the note under the list, those that did not fold
// away at f: the note muted, fitted to w.
func (f Fold) Footer(st themes.Styles, hint, note string, w int) []string {
	var out []string
	if f < FoldHint {
		out = append(out, hint)
	}
	if f < FoldNote {
		out = append(out, st.Muted.Render(widgets.FitWidth(note, w)))
	}
	return out
}
