package widgets

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/themes"
)

// TimelineMark is one instant on a time line.
type TimelineMark struct {
	At    int64
	Glyph string
	Style lipgloss.Style
	// Rank orders marks that fall on one cell: the highest is drawn.
	Rank     int
	Selected bool
}

// Timeline draws marks on a linear time axis w cells wide that spans the
// marks and now: a label line (first instant, "now", last instant), the
// axis with the marks and now drawn as ┃, and a line with ▲ under the
// selected mark and ╹ under now. It reads no clock: now is given.
func Timeline(st themes.Styles, now int64, marks []TimelineMark, w int) []string {
	if w < 12 {
		return nil
	}
	lo, hi := now, now
	for _, mk := range marks {
		lo, hi = min(lo, mk.At), max(hi, mk.At)
	}
	if hi == lo {
		hi = lo + 1
	}
	pos := func(t int64) int { return int((t - lo) * int64(w-1) / (hi - lo)) }

	axis := make(Line, w)
	for i := range axis {
		axis[i] = Span{"─", st.Muted}
	}
	nowAt := pos(now)
	axis[nowAt] = Span{"┃", st.Accent}
	ranks := make([]int, w)
	pointer := []byte(strings.Repeat(" ", w))
	for _, mk := range marks {
		p := pos(mk.At)
		if mk.Selected {
			pointer[p] = '^'
		}
		if ranks[p] > 0 && ranks[p] >= mk.Rank+1 {
			continue
		}
		ranks[p] = mk.Rank + 1
		axis[p] = Span{mk.Glyph, mk.Style}
	}
	// now also shows under the axis, so a mark on its cell hides nothing.
	if pointer[nowAt] == ' ' {
		pointer[nowAt] = '|'
	}
	ptr := strings.NewReplacer("^", "▲", "|", "╹").Replace(string(pointer))
	return []string{timelineLabels(st, lo, hi, nowAt, w), axis.Render(false), st.Accent.Render(ptr)}
}

// timelineLabels puts the first and last instants at the ends and "now"
// over its position, dropping an end label that would collide with it.
func timelineLabels(st themes.Styles, lo, hi int64, nowAt, w int) string {
	cells := []rune(strings.Repeat(" ", w))
	put := func(at int, text string) { // where it fits on blank cells only
		n := ansi.StringWidth(text)
		if at < 0 || at+n > w {
			return
		}
		for i := at; i < at+n; i++ {
			if cells[i] != ' ' {
				return
			}
		}
		copy(cells[at:], []rune(text))
	}
	nowLabel := "now"
	put(min(max(nowAt-1, 0), w-len(nowLabel)), nowLabel)
	// Keep a gap of one cell before "now" so the labels never touch.
	if l := TableTime(lo); nowAt-1 > len(l) {
		put(0, l)
	}
	if r := TableTime(hi); w-len(r) > nowAt+len(nowLabel)+1 {
		put(w-len(r), r)
	}
	return st.Muted.Render(string(cells))
}
