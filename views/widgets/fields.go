package widgets

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/themes"
)

// Gutter marks the selected row so that it shows without colour too.
func Gutter(selected bool) string {
	if selected {
		return "❯"
	}
	return " "
}

// ClipText cuts an id to n cells with an ellipsis.
func ClipText(id string, n int) string {
	return ansi.Truncate(Sanitize(id), n, "…")
}

// FieldLine renders "label   value", wrapping the value under itself.
func FieldLine(st themes.Styles, label string, val Line, w int) []string {
	l := append(Line{{fmt.Sprintf("%-*s", LabelWidth, label), st.Label}}, val...)
	var out []string
	for _, wl := range l.Wrap(w, LabelWidth) {
		out = append(out, wl.Render(false))
	}
	return out
}

// LabelWidth is the width of the field names in the entry pane.
const LabelWidth = 8
