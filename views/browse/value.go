package browse

import (
	"fmt"
	"unicode/utf8"

	"kvdeck/themes"
	"kvdeck/views/widgets"
)

// How much of a value the entry pane prepares. A frame re-wrapped the
// whole value before (a 1 MB value took ~18 s and ~1 GB per frame; 100
// MB never drew and q went unanswered); now at most ValueCap bytes of it
// are pretty-printed and at most valueLineCap lines highlighted, once per
// entry and width (valueCache), and a frame only copies the lines it shows.
const (
	// ValueCap is the most of a value the TUI shows, edits or stages in
	// Compose; a larger one shows its first ValueCap bytes and says so,
	// and kvdeck get/set handle it whole.
	ValueCap = 64 << 10
	// valueLineCap bounds the pretty-printed lines shown (a 64 KiB array
	// of small numbers would be 32 000 lines).
	valueLineCap = 2000
)

// valueCache holds the entry pane's value lines, rendered, for one loaded
// entry (entryState.answers), width and liveness. The model holds a pointer to
// it so that View (a value receiver) can fill it: only the bubbletea
// goroutine touches it.
type valueCache struct {
	gen   int
	width int
	live  bool
	size  int
	lines []string
	note  string // why not all of the value is shown, "" when it is
	valid bool
}

// valueLines returns the rendered lines of value (the entry of read answer
// gen) at width w, preparing them only when the entry, the width or the
// liveness changed.
func (m Model) valueLines(gen int, value []byte, w int, live bool) (lines []string, note string, valid bool) {
	c := m.vcache
	if c == nil {
		c = &valueCache{}
	}
	if c.lines == nil || c.gen != gen || c.width != w || c.live != live || c.size != len(value) {
		*c = valueCache{gen: gen, width: w, live: live, size: len(value)}
		c.lines, c.note, c.valid = prepareValue(m.styles, value, w, live)
	}
	return c.lines, c.note, c.valid
}

// prepareValue pretty-prints, highlights and wraps at most ValueCap bytes
// and valueLineCap lines of value.
func prepareValue(st themes.Styles, value []byte, w int, live bool) (out []string, note string, valid bool) {
	var src []widgets.Line
	if len(value) > ValueCap {
		cut := ValueCap
		for cut > 0 && !utf8.RuneStart(value[cut]) {
			cut-- // do not cut a rune in two
		}
		head := value[:cut]
		src = widgets.JSONPrefixLines(st, head, valueLineCap+1)
		note = fmt.Sprintf("value truncated at %d of %d bytes: the TUI shows, edits and composes values up to %d bytes; kvdeck get / set handle it whole", len(head), len(value), ValueCap)
		valid = true // unknown: not checked, the whole would have to be read
	} else {
		src, valid = widgets.JSONLines(st, value)
	}
	if len(src) > valueLineCap {
		src = src[:valueLineCap]
		if note == "" {
			note = fmt.Sprintf("value truncated at line %d (%d bytes in all); kvdeck get shows it whole", valueLineCap, len(value))
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
