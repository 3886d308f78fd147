package widgets

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/themes"
	"kvdeck/views"
)

// This file holds what the coordination views (Leases, Alarms, Queues)
// share: the engine they act on, list navigation that keeps its place by
// key, the read-only refusal, findings by key, and time formatting.

// NavKeys move a cursor through a list.
type NavKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
}

// DefaultNavKeys returns the list keys every coordination view shares.
func DefaultNavKeys() NavKeys {
	return NavKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g/home", "first")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G/end", "last")),
	}
}

// bindings lists the navigation keys for help.
func (k NavKeys) Bindings() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
}

// listCursor is a cursor over a list shown a window at a time. It keeps
// the selected row's id, so that a reload (which replaces the rows) puts
// it back on the same row, not the same index.
type ListCursor struct {
	Cur, off int
	Id       string // the id of the selected row; "" before any
}

// handle moves the cursor for a navigation key over ids, shown h rows at a
// time; it reports whether msg was a navigation key.
func (c *ListCursor) Handle(msg tea.KeyMsg, k NavKeys, ids []string, h int) bool {
	n := len(ids)
	switch {
	case key.Matches(msg, k.Up):
		c.Set(c.Cur-1, ids, h)
	case key.Matches(msg, k.Down):
		c.Set(c.Cur+1, ids, h)
	case key.Matches(msg, k.PageUp):
		c.Set(c.Cur-max(h, 1), ids, h)
	case key.Matches(msg, k.PageDown):
		c.Set(c.Cur+max(h, 1), ids, h)
	case key.Matches(msg, k.Top):
		c.Set(0, ids, h)
	case key.Matches(msg, k.Bottom):
		c.Set(n-1, ids, h)
	default:
		return false
	}
	return true
}

// set selects row i (clamped) and scrolls it into a window of h rows.
func (c *ListCursor) Set(i int, ids []string, h int) {
	n := len(ids)
	c.Cur = min(max(i, 0), max(n-1, 0))
	c.Id = ""
	if n > 0 {
		c.Id = ids[c.Cur]
	}
	c.off = ScrollTo(c.off, c.Cur, h, n)
}

// follow re-finds the selected id in a new list of ids; when it is gone,
// the cursor stays at the same position (the row that took its place).
func (c *ListCursor) Follow(ids []string, h int) {
	i := c.Cur
	for j, id := range ids {
		if id == c.Id && c.Id != "" {
			i = j
			break
		}
	}
	c.Set(i, ids, h)
}

// window returns the [from, to) range of rows a window of h shows.
func (c ListCursor) Window(n, h int) (int, int) {
	off := ClampOffset(c.off, h, n)
	return off, min(off+h, n)
}

// wheelKey turns a turn of the mouse wheel into the up or down key, so
// that the wheel moves the focused list of a coordination view.
func WheelKey(msg tea.MouseMsg) (tea.KeyMsg, bool) {
	if msg.Action != tea.MouseActionPress {
		return tea.KeyMsg{}, false
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		return tea.KeyMsg{Type: tea.KeyUp}, true
	case tea.MouseButtonWheelDown:
		return tea.KeyMsg{Type: tea.KeyDown}, true
	}
	return tea.KeyMsg{}, false
}

// refuseReadOnly says why a write key does nothing in read-only mode; the
// write bindings are disabled (so help leaves them out), so they are
// matched here on enabled copies.
func RefuseReadOnly(readOnly bool, msg tea.KeyMsg, writes ...key.Binding) tea.Cmd {
	if !readOnly {
		return nil
	}
	for _, b := range writes {
		b.SetEnabled(true)
		if key.Matches(msg, b) {
			return views.Flash(views.FlashError, "read-only: %s is disabled (the store was opened with --read-only)", b.Help().Desc)
		}
	}
	return nil
}

// disableBindings turns bindings off, for read-only mode.
func DisableBindings(bs ...*key.Binding) {
	for _, b := range bs {
		b.SetEnabled(false)
	}
}

// readOnlyNote is the line a coordination view shows instead of its
// action hints in read-only mode.
const ReadOnlyNote = "read-only: the store was opened read-only, so actions are disabled."

// proseLines word-wraps prose in one style.
func ProseLines(text string, style lipgloss.Style, w int) []string {
	return HangingLines(text, style, w, 0)
}

// hangingLines word-wraps prose in one style, indenting every line but
// the first by indent cells.
func HangingLines(text string, style lipgloss.Style, w, indent int) []string {
	lines := wordWrap(text, max(w-indent, 1))
	for i, l := range lines {
		if i > 0 {
			l = strings.Repeat(" ", indent) + l
		}
		lines[i] = style.Render(l)
	}
	return lines
}

// wordWrap breaks text into lines of at most w cells at spaces only (a
// time or a key is not split at its dashes, as ansi.Wrap would); a word
// longer than a line starts a line and is cut. Leading spaces indent the
// first line.
func wordWrap(text string, w int) []string {
	var out []string
	lead := len(text) - len(strings.TrimLeft(text, " "))
	cur := strings.Repeat(" ", min(lead, max(w-1, 0)))
	empty := true // cur holds no word yet
	for _, word := range strings.Fields(text) {
		if ansi.StringWidth(word) > w {
			if !empty {
				out, cur = append(out, cur), ""
			}
			for ansi.StringWidth(word) > w-ansi.StringWidth(cur) {
				head := ansi.Truncate(word, max(w-ansi.StringWidth(cur), 1), "")
				out, cur, word = append(out, cur+head), "", word[len(head):]
			}
		}
		switch {
		case empty || cur == "":
			cur += word
		case ansi.StringWidth(cur)+1+ansi.StringWidth(word) <= w:
			cur += " " + word
		default:
			out, cur = append(out, cur), word
		}
		empty = false
	}
	return append(out, cur)
}

// tableTime is an instant as the tables show it: month-day and time of
// day in UTC, with milliseconds when there are any.
func TableTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("01-02 15:04:05.999")
}

// shortTime is an instant for prose beside now: the time of day when it
// falls on now's UTC day, else month-day and time of day.
func ShortTime(ms, now int64) string {
	t, n := time.UnixMilli(ms).UTC(), time.UnixMilli(now).UTC()
	if t.YearDay() == n.YearDay() && t.Year() == n.Year() {
		return t.Format("15:04:05.999")
	}
	return t.Format("Jan 2 15:04:05.999")
}

// rfcTime is an instant as the detail panes show it (RFC 3339, UTC).
func RfcTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.999Z07:00")
}

// msDur is a span of epoch milliseconds as a duration.
func MsDur(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// relativeTo says where an instant lies from now: "in 12s", "late 3s"
// (overdue) or "now".
func RelativeTo(at, now int64, past string) string {
	switch d := MsDur(at - now); {
	case d > 0:
		return "in " + Human(d)
	case d < 0:
		return past + " " + Human(-d)
	}
	return "now"
}

// gutter marks the selected row so that it shows without colour too.
func Gutter(selected bool) string {
	if selected {
		return "❯"
	}
	return " "
}

// clipText cuts an id to n cells with an ellipsis.
func ClipText(id string, n int) string {
	return ansi.Truncate(Sanitize(id), n, "…")
}

// fieldLine renders "label   value", wrapping the value under itself.
func FieldLine(st themes.Styles, label string, val Line, w int) []string {
	l := append(Line{{fmt.Sprintf("%-*s", LabelWidth, label), st.Label}}, val...)
	var out []string
	for _, wl := range l.Wrap(w, LabelWidth) {
		out = append(out, wl.Render(false))
	}
	return out
}

// labelWidth is the width of the field names in the entry pane.
const LabelWidth = 8
