package widgets

import (
	"fmt"
	"unicode/utf8"

	"kvdeck/themes"
)

// How much of a stored value a pane prepares. A frame that re-wrapped a
// whole value froze the TUI (a 1 MB value took ~1 s and ~700 MB per frame
// to draw, a 100 MB one never drew and q went unanswered); a ValueCache
// pretty-prints at most ValueCap bytes and valueLineCap lines of it, once
// per value and width, and a frame copies only the lines it shows.
const (
	// ValueCap is the most of a value the TUI shows; a larger value shows
	// its first ValueCap bytes and says so.
	ValueCap = 64 << 10
	// valueLineCap bounds the lines prepared (a 64 KiB array of small
	// numbers pretty-prints to 32 000 lines).
	valueLineCap = 2000
)

// ValueCache holds a value's lines, pretty-printed, highlighted, wrapped
// and rendered, for one value (its id), width and liveness. A model keeps
// a pointer to one, so that View (a value receiver) can fill it; only the
// bubbletea goroutine touches it.
type ValueCache struct {
	ready bool
	id    int
	width int
	live  bool
	size  int
	lines []string
	note  string
	valid bool
}

// Lines returns the rendered lines of value at width w, struck through
// when !live, preparing them only when id (which the caller changes
// whenever the value may have changed), the width or the liveness changed.
// note says why not all of the value is shown ("" when it is); valid is
// false for a value that is not JSON (shown raw).
func (c *ValueCache) Lines(st themes.Styles, id int, value []byte, w int, live bool) (lines []string, note string, valid bool) {
	if c == nil {
		return PrepareValue(st, value, w, live)
	}
	if !c.ready || c.id != id || c.width != w || c.live != live || c.size != len(value) {
		*c = ValueCache{ready: true, id: id, width: w, live: live, size: len(value)}
		c.lines, c.note, c.valid = PrepareValue(st, value, w, live)
	}
	return c.lines, c.note, c.valid
}

// Forget makes the next Lines prepare the value again.
func (c *ValueCache) Forget() { c.ready = false }

// PrepareValue pretty-prints, highlights, wraps and renders at most
// ValueCap bytes and valueLineCap lines of value.
func PrepareValue(st themes.Styles, value []byte, w int, live bool) (out []string, note string, valid bool) {
	var src []Line
	if len(value) > ValueCap {
		cut := ValueCap
		for cut > 0 && !utf8.RuneStart(value[cut]) {
			cut-- // do not cut a rune in two
		}
		src = JSONPrefixLines(st, value[:cut], valueLineCap+1)
		note = fmt.Sprintf("value truncated at %d of %d bytes: the TUI shows at most %d bytes of a value", cut, len(value), ValueCap)
		valid = true // unknown: the whole would have to be read to tell
	} else {
		src, valid = JSONLines(st, value)
	}
	if len(src) > valueLineCap {
		src = src[:valueLineCap]
		if note == "" {
			note = fmt.Sprintf("value truncated at line %d of its %d bytes: the TUI shows at most %d lines of a value", valueLineCap, len(value), valueLineCap)
		}
	}
	for _, l := range src {
		if !live {
			l = l.Restyle(st.Expired)
		}
		for _, wl := range l.Wrap(w, 0) {
			out = append(out, wl.Render(false))
		}
	}
	return out, note, valid
}
