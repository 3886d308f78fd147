package widgets

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
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

// Bindings lists the navigation keys for help.
func (k NavKeys) Bindings() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom}
}

// UpDown moves cur, over n rows, a row up or down when msg is Up or
// Down (the TUI's pickers take only these two); ok is false for any
// other key.
func (k NavKeys) UpDown(msg tea.KeyMsg, cur, n int) (next int, ok bool) {
	switch {
	case key.Matches(msg, k.Up):
		return max(min(cur-1, n-1), 0), true
	case key.Matches(msg, k.Down):
		return max(min(cur+1, n-1), 0), true
	}
	return cur, false
}

// Centered returns the [from, to) rows that a window of page rows over
// n shows with cur in its middle, stopping at either end.
func Centered(cur, n, page int) (from, to int) {
	from = max(min(cur-page/2, n-page), 0)
	return from, min(from+page, n)
}

// ListCursor is a cursor over a list shown a window at a time. It keeps
// the selected row's id, so that a reload (which replaces the rows) puts
// it back on the same row, not the same index.
type ListCursor struct {
	Cur, off int
	ID       string // the id of the selected row; "" before any
}

// Selected returns the row of rows under c; false when c is off them
// (no rows, or fewer than before).
func Selected[T any](c ListCursor, rows []T) (T, bool) {
	if c.Cur < 0 || c.Cur >= len(rows) {
		var zero T
		return zero, false
	}
	return rows[c.Cur], true
}

// IDs returns the id of each row, in order: the ids a ListCursor moves
// over and follows.
func IDs[T any](rows []T, id func(T) string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = id(r)
	}
	return out
}

// Handle moves the cursor for a navigation key over ids, shown h rows at a
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

// Set selects row i (clamped) and scrolls it into a window of h rows.
func (c *ListCursor) Set(i int, ids []string, h int) {
	n := len(ids)
	c.Cur = min(max(i, 0), max(n-1, 0))
	c.ID = ""
	if n > 0 {
		c.ID = ids[c.Cur]
	}
	c.off = ScrollTo(c.off, c.Cur, h, n)
}

// Follow re-finds the selected id in a new list of ids; when it is gone,
// the cursor stays at the same position (the row that took its place) and
// gone is the id that disappeared, so that the view can say so instead of
// moving to a neighbour without a word.
func (c *ListCursor) Follow(ids []string, h int) (gone string) {
	i, found := c.Cur, c.ID == ""
	for j, id := range ids {
		if id == c.ID && c.ID != "" {
			i, found = j, true
			break
		}
	}
	if !found {
		gone = c.ID
	}
	c.Set(i, ids, h)
	return gone
}

// Click selects the row a click picked, row lines below the first row
// shown (a window of h rows over ids); false when no row is there.
func (c *ListCursor) Click(row int, ids []string, h int) bool {
	from, to := c.Window(len(ids), h)
	if row < 0 || from+row >= to {
		return false
	}
	c.Set(from+row, ids, h)
	return true
}

// LeftClick returns the line of a press of the left button, in the
// view's coordinates; false for any other mouse event.
func LeftClick(msg tea.MouseMsg) (x, y int, ok bool) {
	if msg.Button != tea.MouseButtonLeft || msg.Action != tea.MouseActionPress {
		return 0, 0, false
	}
	return msg.X, msg.Y, true
}

// Window returns the [from, to) range of rows a window of h shows.
func (c ListCursor) Window(n, h int) (int, int) {
	off := ClampOffset(c.off, h, n)
	return off, min(off+h, n)
}

// WheelKey turns a turn of the mouse wheel into the up or down key, so
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

// All are the navigation keys, for a tab's table of actions.
func (k *NavKeys) All() []*key.Binding {
	return []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Top, &k.Bottom}
}
