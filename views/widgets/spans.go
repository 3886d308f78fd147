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
// needed; continuation lines start with indent spaces. A break that would
// fall inside a word moves back to just after the last space when that
// keeps at least half the line (prose, a key's parts after ", "); a long
// run without spaces (hex, an id, JSON) is cut where it must. A closing bracket
// or a comma never starts a continuation line: it goes with the character
// before it (and the quote it closes), so a key never ends in a lone "]".
// A character wider than a whole line is put on a line of its own anyway.
func (l Line) Wrap(w, indent int) []Line {
	if w <= indent {
		return []Line{l}
	}
	cs := clustersOf(l)
	var out []Line
	for i := 0; ; {
		used := 0
		if len(out) > 0 {
			used = indent
		}
		j := i
		for j < len(cs) && (used+cs[j].width <= w || j == i) {
			used += cs[j].width
			j++
		}
		if j < len(cs) {
			j = keepClosers(cs, i, j)
			room := w
			if len(out) > 0 {
				room -= indent
			}
			j = atSpace(cs, i, j, room)
		}
		out = append(out, lineOf(l, cs[i:j], len(out) > 0, indent))
		if i = j; i >= len(cs) {
			return out
		}
	}
}

// cluster is one character (grapheme cluster) of a line, with its width
// and the span it belongs to.
type cluster struct {
	text  string
	width int
	span  int
}

// clustersOf splits the line into characters. They are found in the
// whole text, not span by span: a character may join pieces of two spans
// (a mark, a variation selector), and its width is the joined one. It
// takes the style of the span it starts in.
func clustersOf(l Line) []cluster {
	text := l.Render(true)
	var cs []cluster
	span, end := 0, 0 // the span at the cluster's start; where it ends
	for pos := 0; pos < len(text); {
		c, _ := ansi.FirstGraphemeCluster(text[pos:], ansi.GraphemeWidth)
		if c == "" { // never: a safeguard against an endless loop
			_, size := utf8.DecodeRuneInString(text[pos:])
			c = text[pos : pos+size]
		}
		// Measured as lines are measured (a stray byte is a cell).
		wd := ansi.StringWidth(c)
		for span < len(l) && end+len(l[span].Text) <= pos {
			end += len(l[span].Text)
			span++
		}
		cs = append(cs, cluster{text: c, width: wd, span: span})
		pos += len(c)
	}
	return cs
}

// atSpace moves a break before cs[j] that falls inside a word (neither
// cs[j] nor cs[j-1] a space) back to just after the last space of the
// line cs[i:j], when the line keeps at least half of its room (room
// cells); otherwise the break stays.
func atSpace(cs []cluster, i, j, room int) int {
	if cs[j].text == " " || cs[j-1].text == " " {
		return j
	}
	kept := 0
	for p := i; p < j; p++ {
		kept += cs[p].width
	}
	for p := j - 1; p > i; p-- {
		kept -= cs[p].width
		if cs[p-1].text == " " {
			if 2*kept >= room {
				return p
			}
			return j
		}
	}
	return j
}

// keepClosers moves a break before cs[j] back while cs[j] would start the
// next line with a closing bracket, a comma or a closing quote; at least
// cs[i] stays on the line, and a line of nothing else breaks where it
// was.
func keepClosers(cs []cluster, i, j int) int {
	p := j
	for p > i+1 && closes(cs, p) {
		p--
	}
	if closes(cs, p) {
		return j
	}
	return p
}

// closes reports whether cs[p] closes what comes before it: a closing
// bracket, a comma, or a quote before one of those or at the end.
func closes(cs []cluster, p int) bool {
	closer := func(s string) bool { return s == "]" || s == "}" || s == ")" || s == "," }
	switch t := cs[p].text; {
	case closer(t):
		return true
	case t == `"`:
		return p+1 == len(cs) || closer(cs[p+1].text)
	}
	return false
}

// lineOf builds a line of cs in the styles of l's spans, after indent
// spaces on a continuation line.
func lineOf(l Line, cs []cluster, cont bool, indent int) Line {
	out := Line{}
	if cont && indent > 0 {
		out = append(out, Span{strings.Repeat(" ", indent), lipgloss.Style{}})
	}
	var b strings.Builder
	for k, c := range cs {
		b.WriteString(c.text)
		if k+1 == len(cs) || cs[k+1].span != c.span {
			out = append(out, Span{b.String(), l[c.span].Style})
			b.Reset()
		}
	}
	return out
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
