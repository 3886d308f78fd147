package widgets

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"

	"kvdeck/codec"
	"kvdeck/views"
)

// Marks are the rows a tab has marked for a bulk action: Browse, Activity,
// Queues and Alarms each keep one set. A mark holds
// the row's key and the versionstamp seen when it was marked, so that the
// bulk commit checks it: a row changed since is skipped and reported,
// never overwritten (store.CommitBulk).
type Marks struct {
	order []string
	by    map[string]Mark
}

// Mark is one marked row.
type Mark struct {
	// ID is the row's id in its list (what the cursor follows).
	ID string
	// Key is the row's key; Stamp the versionstamp seen when marked.
	Key   codec.Key
	Stamp string
	// Value is the row's value when marked, for actions that rewrite the
	// row (a message's retry): the stamp check makes it still the value.
	Value []byte
	// Data is what else the tab needs to act on the row, as seen when
	// marked (an alarm's other rows).
	Data any
}

// MarkKeys are the marking keys, one meaning on every tab that marks.
type MarkKeys struct {
	Mark, MarkAll, Bulk key.Binding
}

// DefaultMarkKeys: space marks the row (and moves down), ctrl+a marks
// every row shown (again: clears every mark), ; opens the bulk menu (as
// mutt's tag-prefix acts on the tagged).
func DefaultMarkKeys() MarkKeys {
	return MarkKeys{
		Mark:    key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "mark row (for ;)")),
		MarkAll: key.NewBinding(key.WithKeys("ctrl+a"), key.WithHelp("ctrl+a", "mark all shown / clear")),
		Bulk:    key.NewBinding(key.WithKeys(";"), key.WithHelp(";", "act on the marked (bulk menu)")),
	}
}

// Bindings lists the marking keys for help.
func (k MarkKeys) MarkBindings() []key.Binding { return []key.Binding{k.Mark, k.MarkAll, k.Bulk} }

// Toggle marks m, or unmarks it when its ID is marked; it reports whether
// m is marked now.
func (s *Marks) Toggle(m Mark) bool {
	if s.by == nil {
		s.by = map[string]Mark{}
	}
	if _, ok := s.by[m.ID]; ok {
		delete(s.by, m.ID)
		for i, id := range s.order {
			if id == m.ID {
				s.order = append(s.order[:i:i], s.order[i+1:]...)
				break
			}
		}
		return false
	}
	s.by[m.ID] = m
	s.order = append(s.order, m.ID)
	return true
}

// All marks every row of rows; when every one was marked already, it
// clears every mark instead (ctrl+a again).
func (s *Marks) All(rows []Mark) {
	all := len(rows) > 0
	for _, r := range rows {
		all = all && s.Has(r.ID)
	}
	if all {
		s.Clear()
		return
	}
	for _, r := range rows {
		if !s.Has(r.ID) {
			s.Toggle(r)
		}
	}
}

// Has reports whether the row id is marked.
func (s Marks) Has(id string) bool {
	_, ok := s.by[id]
	return ok
}

// Len is how many rows are marked.
func (s Marks) Len() int { return len(s.order) }

// Clear unmarks every row.
func (s *Marks) Clear() { s.order, s.by = nil, nil }

// List returns the marks in the order they were made.
func (s Marks) List() []Mark {
	out := make([]Mark, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.by[id])
	}
	return out
}

// Keys returns the marked rows' keys, in the order they were marked.
func (s Marks) Keys() []codec.Key {
	out := make([]codec.Key, 0, len(s.order))
	for _, id := range s.order {
		out = append(out, s.by[id].Key)
	}
	return out
}

// Glyph is the mark column of a row: "✓" when marked, else a space (the
// column keeps its width either way).
func (s Marks) Glyph(id string) string {
	if s.Has(id) {
		return "✓"
	}
	return " "
}

// Indicator is "N marked" for a title or status line; "" when none.
func (s Marks) Indicator() string {
	if s.Len() == 0 {
		return ""
	}
	return fmt.Sprintf("%d marked", s.Len())
}

// Count is how many rows are marked, as a bulk menu's title names them:
// "1 alarm", "3 alarms" (the plural of one adds an s).
func (s Marks) Count(one string) string {
	if s.Len() == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", s.Len(), one)
}

// All are the marking keys, for a tab's table of actions.
func (k *MarkKeys) All() []*key.Binding { return []*key.Binding{&k.Mark, &k.MarkAll, &k.Bulk} }

// NoneMarked says that no row is marked and how to mark one, naming
// rows as what: "no key marked: space marks one, ctrl+a all shown".
func (k MarkKeys) NoneMarked(what string) string {
	return "no " + what + " marked: " + views.Hint("%s marks one, %s all shown", k.Mark, k.MarkAll)
}
