package widgets

import (
	"strings"
	"unicode/utf8"

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
	lines := Wrap(text, max(w-indent, 1))
	for i, l := range lines {
		if i > 0 {
			l = strings.Repeat(" ", indent) + l
		}
		lines[i] = style.Render(l)
	}
	return lines
}

// WrapHanging is Wrap for a line that may be indented: the lines after
// the first keep its indent, and those of an indented field ("  value
// a → b": a lowercase label padded to LabelWidth, as FieldLine and
// ChangeLines write it) start under its value, so a wrapped line never
// starts at the margin of the text it belongs to.
func WrapHanging(text string, w int) []string {
	w = max(w, 1)
	body := strings.TrimLeft(text, " ")
	lead := min(len(text)-len(body), w/2)
	hang := lead
	if lead > 0 && isFieldLabel(body) && hang+LabelWidth <= w/2 {
		hang += LabelWidth
	}
	first := Wrap(strings.Repeat(" ", lead)+body, w)
	took := strings.TrimLeft(first[0], " ")
	if len(first) <= 1 || !strings.HasPrefix(body, took) {
		return first
	}
	out := first[:1]
	for _, l := range Wrap(strings.TrimLeft(body[len(took):], " "), w-hang) {
		out = append(out, strings.Repeat(" ", hang)+l)
	}
	return out
}

// isFieldLabel reports whether text starts with a field's label: one
// lowercase word padded with spaces to LabelWidth, then the value.
func isFieldLabel(text string) bool {
	if len(text) <= LabelWidth || text[LabelWidth-1] != ' ' || text[LabelWidth] == ' ' || text[0] < 'a' || text[0] > 'z' {
		return false
	}
	return !strings.Contains(strings.TrimRight(text[:LabelWidth], " "), " ")
}

// Wrap is the one word wrapper of the TUI: it breaks plain text into lines
// of at most w cells at spaces only, so a time (2026-01-02T00:00:30Z), a
// key or an id is never split at its dashes (ansi.Wrap splits at hyphens).
// A newline starts a new line; spaces between words on one line are kept;
// a word longer than a line starts a line and is cut; leading spaces
// indent the first line. Style the lines after wrapping: the text must not
// hold escape sequences.
func Wrap(text string, w int) []string {
	w = max(w, 1)
	var out []string
	for _, para := range strings.Split(text, "\n") {
		out = append(out, wrapLine(para, w)...)
	}
	return out
}

// wrapLine wraps one line of text (no newline) to w cells.
func wrapLine(text string, w int) []string {
	var out []string
	rest := strings.TrimLeft(text, " ")
	cur := strings.Repeat(" ", min(len(text)-len(rest), w-1))
	empty := true // cur holds no word yet
	gap := ""
	for rest != "" {
		i := strings.IndexByte(rest, ' ')
		if i < 0 {
			i = len(rest)
		}
		word := rest[:i]
		rest = rest[i:]
		next := strings.TrimLeft(rest, " ")
		space := gap
		gap, rest = rest[:len(rest)-len(next)], next
		if ansi.StringWidth(word) > w {
			if !empty {
				out, cur = append(out, cur), ""
			}
			for ansi.StringWidth(word) > w-ansi.StringWidth(cur) {
				head := ansi.Truncate(word, max(w-ansi.StringWidth(cur), 1), "")
				if head == "" { // a character wider than the line
					_, size := utf8.DecodeRuneInString(word)
					head = word[:size]
				}
				out, cur, word = append(out, cur+head), "", word[len(head):]
			}
		}
		switch {
		case empty || cur == "":
			cur += word
		case ansi.StringWidth(cur)+len(space)+ansi.StringWidth(word) <= w:
			cur += space + word
		default:
			out, cur = append(out, cur), word
		}
		empty = false
	}
	if cur == "" && !empty && len(out) > 0 {
		return out // the last word was cut to the end
	}
	return append(out, cur)
}
