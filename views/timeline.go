package views

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/themes"
)

// timelineMark is one instant on a time line.
type timelineMark struct {
	at    int64
	glyph string
	style lipgloss.Style
	// rank orders marks that fall on one cell: the highest is drawn.
	rank     int
	selected bool
}

// timeline draws marks on a linear time axis w cells wide that spans the
// marks and now: a label line (first instant, "now", last instant), the
// axis with the marks and now drawn as ┃, and a line with ▲ under the
// selected mark and ╹ under now. It reads no clock: now is given.
func timeline(st themes.Styles, now int64, marks []timelineMark, w int) []string {
	if w < 12 {
		return nil
	}
	lo, hi := now, now
	for _, mk := range marks {
		lo, hi = min(lo, mk.at), max(hi, mk.at)
	}
	if hi == lo {
		hi = lo + 1
	}
	pos := func(t int64) int { return int((t - lo) * int64(w-1) / (hi - lo)) }

	axis := make(line, w)
	for i := range axis {
		axis[i] = span{"─", st.Muted}
	}
	nowAt := pos(now)
	axis[nowAt] = span{"┃", st.Accent}
	ranks := make([]int, w)
	pointer := []byte(strings.Repeat(" ", w))
	for _, mk := range marks {
		p := pos(mk.at)
		if mk.selected {
			pointer[p] = '^'
		}
		if ranks[p] > 0 && ranks[p] >= mk.rank+1 {
			continue
		}
		ranks[p] = mk.rank + 1
		axis[p] = span{mk.glyph, mk.style}
	}
	// now also shows under the axis, so a mark on its cell hides nothing.
	if pointer[nowAt] == ' ' {
		pointer[nowAt] = '|'
	}
	ptr := strings.NewReplacer("^", "▲", "|", "╹").Replace(string(pointer))
	return []string{timelineLabels(st, lo, hi, nowAt, w), axis.render(false), st.Accent.Render(ptr)}
}

// timelineLabels puts the first and last instants at the ends and "now"
// over its position, dropping an end label that would collide with it.
func timelineLabels(st themes.Styles, lo, hi int64, nowAt, w int) string {
	cells := []rune(strings.Repeat(" ", w))
	put := func(at int, text string) bool {
		n := ansi.StringWidth(text)
		if at < 0 || at+n > w {
			return false
		}
		for i := at; i < at+n; i++ {
			if cells[i] != ' ' {
				return false
			}
		}
		copy(cells[at:], []rune(text))
		return true
	}
	nowLabel := "now"
	put(min(max(nowAt-1, 0), w-len(nowLabel)), nowLabel)
	// Keep a gap of one cell before "now" so the labels never touch.
	if l := tableTime(lo); nowAt-1 > len(l) {
		put(0, l)
	}
	if r := tableTime(hi); w-len(r) > nowAt+len(nowLabel)+1 {
		put(w-len(r), r)
	}
	return st.Muted.Render(string(cells))
}
