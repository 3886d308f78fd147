package reader

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/internal/usertext"
)

// The reader once laid the whole value out in memory (readerText); the
// streaming scan (scan.go) must lay it out the same way, and these
// are its reference, kept for the tests.

// readerText is a whole value laid out for the reader: pretty-printed
// when it is JSON, sanitized (nothing stored reaches the terminal raw),
// and wrapped at a width, as byte ranges of one string, so that a frame
// copies only the rows it shows.
type readerText struct {
	width int
	lines bool
	text  string
	rows  [][2]int
}

// row is the text of row i.
func (t *readerText) row(i int) string { return t.text[t.rows[i][0]:t.rows[i][1]] }

// layoutValue lays value out at width w; with lines, the \n escapes in
// its JSON strings break the line (a 3,000-line string reads as lines).
func layoutValue(value []byte, w int, lines bool) *readerText {
	text := valueText(value, lines)
	t := &readerText{width: w, lines: lines, text: text}
	w = max(w, 1)
	start := 0
	for start <= len(text) {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		t.wrap(start, end, w)
		start = end + 1
	}
	return t
}

// valueText is value as the reader and the pager show it: pretty-printed
// when it is JSON (with lines, its strings' \n escapes as line breaks)
// and sanitized.
func valueText(value []byte, lines bool) string {
	var buf bytes.Buffer
	text := string(value)
	if json.Indent(&buf, value, "", "  ") == nil {
		text = buf.String()
		if lines {
			text = expandNewlines(text)
		}
	}
	return usertext.SanitizeLines(text)
}

// wrap adds the rows of the line text[start:end], w cells each at most.
func (t *readerText) wrap(start, end, w int) {
	row, cells := start, 0
	for i := start; i < end; {
		c := t.text[i]
		size, width := 1, 1
		if c >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(t.text[i:end])
			width = ansi.StringWidth(t.text[i : i+size])
		}
		if cells+width > w && i > row {
			t.rows = append(t.rows, [2]int{row, i})
			row, cells = i, 0
		}
		cells += width
		i += size
	}
	t.rows = append(t.rows, [2]int{row, end})
}

// expandNewlines turns each \n escape inside a JSON string of indented
// text into a line break, the next line indented as the one it breaks.
func expandNewlines(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	in, lineStart := false, 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\n':
			lineStart = b.Len() + 1
		case in && c == '\\' && i+1 < len(text):
			if text[i+1] == 'n' {
				cur := b.String()[lineStart:]
				indent := cur[:len(cur)-len(strings.TrimLeft(cur, " "))]
				b.WriteString("\n" + indent + "  ")
				lineStart = b.Len() - len(indent) - 2
				i++
				continue
			}
			b.WriteByte(c)
			b.WriteByte(text[i+1])
			i++
			continue
		case c == '"':
			in = !in
		}
		b.WriteByte(c)
	}
	return b.String()
}
