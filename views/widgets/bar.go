package widgets

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// barEighths are the partial blocks a bar ends with, 1/8 to 7/8 of a cell.
var barEighths = []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}

// ShareBar draws part/whole as a bar of w cells: full blocks, a partial
// block for the remainder (to an eighth of a cell), then a light track.
// The filled part is drawn in fill, the track in track. A part beyond the
// whole fills the bar; a negative part draws the bare track.
func ShareBar(part, whole int64, w int, fill, track lipgloss.Style) Line {
	if w <= 0 {
		return nil
	}
	eighthsFilled := 0
	switch {
	case whole <= 0 || part >= whole:
		eighthsFilled = w * 8
	case part > 0:
		eighthsFilled = int(part * int64(w) * 8 / whole)
		if eighthsFilled == 0 {
			eighthsFilled = 1 // something is left: show it
		}
	}
	full, rest := eighthsFilled/8, eighthsFilled%8
	bar := strings.Repeat("█", full) + barEighths[rest]
	used := full
	if rest > 0 {
		used++
	}
	return Line{{bar, fill}, {strings.Repeat("░", w-used), track}}
}
