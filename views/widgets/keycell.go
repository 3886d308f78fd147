package widgets

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/themes"
)

// KeyCell draws a whole key in at most w cells, for a table cell or a
// list of keys: canonical key text, every part sanitised and in its
// type's style. A key too long for w is shortened part by part, the
// least telling first, never by cutting its text at one place: a part of
// shortKeyPart characters or fewer stays whole ("invoices", "bob"); of
// the longer ones, the first keeps its start (what the key is: a queue,
// an alarm, a lease), the last its end (ids that share a prefix differ
// at their end), and the parts in between (a due time) are cut in their
// middle and grow last; in a narrow cell every part keeps a little of
// itself first (allocKeyParts). So
// ["dwk_queue_due", "invoices", 1796121459946, "52f270e7-…-926c00b0d136"]
// in 45 cells is ["dwk_queue_due", "invoices", 17…46, "…d136"]. Below
// KeyCellMin, the key text is cut at its end: a table that has the room
// gives its key column that much (KeyCellMin).
func KeyCell(st themes.Styles, k codec.Key, w int) Line {
	if w <= 0 {
		return Line{}
	}
	parts := make([]keyPart, len(k))
	full := 2 + 2*max(len(k)-1, 0)
	for i, p := range k {
		parts[i] = newKeyPart(p, PartStyle(st, p.Kind()))
		full += parts[i].width
	}
	whole := func(widths []int) Line {
		out := Line{{"[", st.JSONPunct}}
		for i, p := range parts {
			if i > 0 {
				out = append(out, Span{", ", st.JSONPunct})
			}
			out = append(out, Span{p.cut(widths[i], i, len(parts)), p.style})
		}
		return append(out, Span{"]", st.JSONPunct})
	}
	widths := make([]int, len(parts))
	for i, p := range parts {
		widths[i] = p.width
	}
	if full <= w {
		return whole(widths)
	}
	if alloc, ok := allocKeyParts(parts, w-(full-sumWidths(parts))); ok {
		return whole(alloc)
	}
	return whole(widths).CutEnd(w)
}

// keyPart is one part of a key as text: sanitised, with the quotes that
// stay when it is shortened.
type keyPart struct {
	text        string
	open, close string // `"` and `"` of a string, `b"` and `"` of bytes
	width       int
	style       lipgloss.Style
}

func newKeyPart(p codec.Part, style lipgloss.Style) keyPart {
	text := Sanitize(p.String())
	kp := keyPart{text: text, width: ansi.StringWidth(text), style: style}
	switch {
	case p.Kind() == codec.KindString && len(text) >= 2 && strings.HasPrefix(text, `"`) && strings.HasSuffix(text, `"`):
		kp.open, kp.close = `"`, `"`
	case p.Kind() == codec.KindBytes && len(text) >= 3 && strings.HasPrefix(text, `b"`) && strings.HasSuffix(text, `"`):
		kp.open, kp.close = `b"`, `"`
	}
	return kp
}

// shortKeyPart is the longest part (in cells, without its quotes) that
// is never shortened: a word such as "invoices" or "emails", a small
// number, tells more whole than any cut of it ("em…ls") in the cells it
// would save.
const shortKeyPart = 8

// minKeyPart is the fewest cells a first or last part is given: a
// character or two and the ellipsis ("…d1" or "ab…"), and a quoted part's
// quotes around them.
const minKeyPart = 4

// What each part gets before any part grows further, so that a narrow
// cell still shows a little of every part: the first part's start
// ("dwk_q…"), the last four characters of an id (quoted, "…d136"), and
// both ends of each part in between ("i…s", 17…46).
const (
	firstKeyPart  = 8
	lastKeyPart   = 7
	middleKeyPart = 5
)

// allocKeyParts shares room cells among the parts: each first gets its
// minimum (the first and the last minKeyPart, the others one cell, for an
// ellipsis); then every part grows to a little of itself (lastKeyPart,
// firstKeyPart, middleKeyPart); then the first part grows to whole, the
// parts in between to whole in order, and the last part takes what is
// left. A quoted part in between gets no width at which
// its quotes would hold no character ("…" instead of `"…"` or `…"`): the
// cells go to the next parts. ok is false when the minimums do not fit.
func allocKeyParts(parts []keyPart, room int) ([]int, bool) {
	n := len(parts)
	if n == 0 {
		return nil, false
	}
	alloc := make([]int, n)
	for i, p := range parts {
		alloc[i] = p.least(i, n)
		room -= alloc[i]
	}
	if room < 0 {
		return nil, false
	}
	grow := func(i, to int) {
		more := min(max(min(to, parts[i].width)-alloc[i], 0), room)
		alloc[i] += more
		room -= more
		if q := parts[i].quotes(); q > 0 && alloc[i] > 1 && alloc[i] < q+2 && alloc[i] < parts[i].width {
			room += alloc[i] - 1
			alloc[i] = 1
		}
	}
	if n > 1 {
		grow(n-1, lastKeyPart) // what tells ids apart goes first
	}
	grow(0, firstKeyPart)
	for i := 1; i < n-1; i++ {
		grow(i, middleKeyPart)
	}
	grow(0, parts[0].width)
	for i := 1; i < n-1; i++ {
		grow(i, parts[i].width)
	}
	grow(n-1, parts[n-1].width)
	return alloc, true
}

// least is the fewest cells part i of n is drawn in: a short part whole
// (shortKeyPart), a first or last part minKeyPart (more for its
// quotes), a part in between one cell (an ellipsis).
func (p keyPart) least(i, n int) int {
	if p.width-p.quotes() <= shortKeyPart {
		return p.width
	}
	if i == 0 || i == n-1 {
		return min(p.width, max(minKeyPart, p.quotes()+2))
	}
	return 1
}

// KeyCellMin is the fewest cells in which KeyCell draws k with every
// part readable: its short parts whole, a little of each long one
// ("dwk_q…", 17…46, "…d136"). A table gives its key column at least
// this much, letting a column that would show less than that go first.
func KeyCellMin(k codec.Key) int {
	n := 2 + 2*max(len(k)-1, 0)
	for i, p := range k {
		kp := newKeyPart(p, lipgloss.Style{})
		switch {
		case kp.width-kp.quotes() <= shortKeyPart:
			n += kp.width
		case i == len(k)-1 && i > 0:
			n += min(kp.width, lastKeyPart)
		case i == 0:
			n += min(kp.width, firstKeyPart)
		default:
			n += min(kp.width, middleKeyPart)
		}
	}
	return n
}

// quotes is the width of the part's quotes (0 when it has none).
func (p keyPart) quotes() int { return ansi.StringWidth(p.open) + ansi.StringWidth(p.close) }

func sumWidths(parts []keyPart) int {
	n := 0
	for _, p := range parts {
		n += p.width
	}
	return n
}

// cut shortens the part (number i of n) to w cells: the first part keeps
// its start, the last its end, the others both ends; a quoted part keeps
// its quotes while there is room for a character inside.
func (p keyPart) cut(w, i, n int) string {
	if p.width <= w {
		return p.text
	}
	if w <= 0 {
		return ""
	}
	text, open, close := p.text, "", ""
	if q := p.quotes(); q > 0 && w >= q+2 {
		text = text[len(p.open) : len(text)-len(p.close)]
		open, close, w = p.open, p.close, w-q
	}
	switch {
	case i == 0 && n > 1:
		text = cutEnd(text, w)
	case i == n-1 && n > 1:
		text = keepEnd(text, w)
	default:
		text = cutMiddle(text, w)
	}
	return open + text + close
}

// cutEnd keeps the start of text in w cells, the ellipsis last.
func cutEnd(text string, w int) string {
	if ansi.StringWidth(text) <= w {
		return text
	}
	return ansi.Truncate(text, w, "…")
}

// keepEnd keeps the end of text in w cells, the ellipsis first.
func keepEnd(text string, w int) string {
	n := ansi.StringWidth(text)
	if n <= w {
		return text
	}
	if w <= 1 {
		return ansi.Truncate("…", w, "")
	}
	return "…" + tailCells(text, w-1)
}

// cutMiddle keeps both ends of text in w cells, the ellipsis between.
func cutMiddle(text string, w int) string {
	if ansi.StringWidth(text) <= w {
		return text
	}
	if w <= 1 {
		return ansi.Truncate("…", w, "")
	}
	head := (w - 1) / 2
	return ansi.Truncate(text, head, "") + "…" + tailCells(text, w-1-head)
}

// tailCells is the end of text in at most w cells: a character (a
// grapheme cluster) that does not fit whole is left out.
func tailCells(text string, w int) string {
	n := ansi.StringWidth(text)
	for text != "" && n > w {
		c, cw := ansi.FirstGraphemeCluster(text, ansi.GraphemeWidth)
		if c == "" {
			return ""
		}
		text, n = text[len(c):], n-cw
	}
	return text
}

// CutEnd shortens the line to at most w cells, keeping its start and the
// styles of its spans, with an ellipsis last.
func (l Line) CutEnd(w int) Line {
	if ansi.StringWidth(l.Render(true)) <= w {
		return l
	}
	out := Line{}
	used := 0
	for _, s := range l {
		sw := ansi.StringWidth(s.Text)
		if used+sw < w {
			out, used = append(out, s), used+sw
			continue
		}
		if w-used >= 1 {
			out = append(out, Span{ansi.Truncate(s.Text, w-used-1, "") + "…", s.Style})
		}
		break
	}
	return out
}
