package widgets

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/themes"
)

// Span is a piece of text with the style it is drawn in. Lines are built
// from spans so that they can be wrapped, truncated or drawn plain (on a
// selected row) without cutting through escape sequences.
type Span struct {
	Text  string
	Style lipgloss.Style
}

// Line is one screen line of spans.
type Line []Span

// Render draws the line with its styles, or plain when plain is set.
func (l Line) Render(plain bool) string {
	var b strings.Builder
	for _, s := range l {
		if plain {
			b.WriteString(s.Text)
		} else {
			b.WriteString(s.Style.Render(s.Text))
		}
	}
	return b.String()
}

// Restyle returns the line with every span drawn in st.
func (l Line) Restyle(st lipgloss.Style) Line {
	out := make(Line, len(l))
	for i, s := range l {
		out[i] = Span{s.Text, st}
	}
	return out
}

// Wrap cuts the line into lines of at most w cells, splitting spans where
// needed; continuation lines start with indent spaces.
func (l Line) Wrap(w, indent int) []Line {
	if w <= indent {
		return []Line{l}
	}
	var out []Line
	cur, used := Line{}, 0
	for _, s := range l {
		text := s.Text
		for text != "" {
			room := w - used
			tw := ansi.StringWidth(text)
			if tw <= room {
				cur, used = append(cur, Span{text, s.Style}), used+tw
				break
			}
			head := ansi.Truncate(text, room, "")
			if head == "" && used == indent {
				// A character wider than the room: take it anyway.
				_, size := utf8.DecodeRuneInString(text)
				head = text[:size]
			}
			if head != "" {
				cur = append(cur, Span{head, s.Style})
			}
			text = text[len(head):]
			out = append(out, cur)
			cur, used = Line{Span{strings.Repeat(" ", indent), lipgloss.Style{}}}, indent
		}
	}
	return append(out, cur)
}

// PartStyle is the style of a key part's type.
func PartStyle(st themes.Styles, k codec.Kind) lipgloss.Style {
	switch k {
	case codec.KindString:
		return st.PartString
	case codec.KindNumber:
		return st.PartNumber
	case codec.KindBigint:
		return st.PartBigint
	case codec.KindBool:
		return st.PartBool
	case codec.KindBytes:
		return st.PartBytes
	}
	return st.Text
}

// KeySpans draws a key as canonical key text with every part in its type's
// style.
func KeySpans(st themes.Styles, k codec.Key) Line {
	out := Line{{"[", st.JSONPunct}}
	for i, p := range k {
		if i > 0 {
			out = append(out, Span{", ", st.JSONPunct})
		}
		out = append(out, Span{p.String(), PartStyle(st, p.Kind())})
	}
	return append(out, Span{"]", st.JSONPunct})
}

// Sanitize makes text from the database safe to print on a terminal: the
// one rule of usertext.Sanitize (controls, C1, bidi controls, U+2028/2029
// and unprintables shown as \uXXXX, bad UTF-8 as \xNN), which the CLI
// applies too.
func Sanitize(s string) string { return usertext.Sanitize(s) }

// CutMiddle shortens the line to w cells by replacing its middle with "…",
// keeping both ends in the first span's style (ids that share a prefix
// differ at their end).
func (l Line) CutMiddle(w int) Line {
	text := l.Render(true)
	if ansi.StringWidth(text) <= w || len(l) == 0 {
		return l
	}
	if w <= 1 {
		return Line{{ansi.Truncate(text, w, ""), l[0].Style}}
	}
	head := (w - 1) / 2
	tail := w - 1 - head
	n := ansi.StringWidth(text)
	return Line{{ansi.Truncate(text, head, "") + "…" + ansi.TruncateLeft(text, n-tail, ""), l[0].Style}}
}
