package widgets

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// ProseLines word-wraps prose in one style.
func ProseLines(text string, style lipgloss.Style, w int) []string {
	return HangingLines(text, style, w, 0)
}

// HangingLines word-wraps prose in one style, indenting every line but
// the first by indent cells.
func HangingLines(text string, style lipgloss.Style, w, indent int) []string {
	lines := wordWrap(text, max(w-indent, 1))
	for i, l := range lines {
		if i > 0 {
			l = strings.Repeat(" ", indent) + l
		}
		lines[i] = style.Render(l)
	}
	return lines
}

// wordWrap breaks text into lines of at most w cells at spaces only (a
// time or a key is not split at its dashes, as ansi.Wrap would); a word
// longer than a line starts a line and is cut. Leading spaces indent the
// first line.
func wordWrap(text string, w int) []string {
	var out []string
	lead := len(text) - len(strings.TrimLeft(text, " "))
	cur := strings.Repeat(" ", min(lead, max(w-1, 0)))
	empty := true // cur holds no word yet
	for _, word := range strings.Fields(text) {
		if ansi.StringWidth(word) > w {
			if !empty {
				out, cur = append(out, cur), ""
			}
			for ansi.StringWidth(word) > w-ansi.StringWidth(cur) {
				head := ansi.Truncate(word, max(w-ansi.StringWidth(cur), 1), "")
				out, cur, word = append(out, cur+head), "", word[len(head):]
			}
		}
		switch {
		case empty || cur == "":
			cur += word
		case ansi.StringWidth(cur)+1+ansi.StringWidth(word) <= w:
			cur += " " + word
		default:
			out, cur = append(out, cur), word
		}
		empty = false
	}
	return append(out, cur)
}
