package widgets

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
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

// Sanitize makes text from the database safe to print on a terminal:
// control characters (C0 but tab, DEL, C1), line and paragraph separators,
// bidirectional controls and the byte order mark become visible \uXXXX
// escapes, so a stored value can neither move the cursor nor reorder what
// is shown around it. Invalid UTF-8 bytes become \xNN.
func Sanitize(s string) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func unsafeRune(r rune) bool {
	switch {
	case r == '\t':
		return false
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true
	case r == 0x2028, r == 0x2029, r == 0xfeff:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	}
	return !unicode.IsPrint(r) && !unicode.IsSpace(r) && !unicode.Is(unicode.Mn, r)
}
