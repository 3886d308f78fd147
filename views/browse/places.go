package browse

import (
	"kvdeck/codec"
)

// Places for the back stack. Like vim's jump list,
// which counts G, gg, a search or % but not j/k, a Browse move counts as a
// place when the key's purpose is to go somewhere rather than to the
// next row, and the selection changed by it:
//
//   - g/home and G/end (to the level's first or last key, however far);
//   - ←/h to the parent, →/l into an open level, enter collapsing to the
//     parent (expanding in place moves nothing, so it counts nothing);
//   - a filter accepted with enter that took the cursor elsewhere;
//   - enter on a value-search match (a jump within Browse).
//
// Up/down, page up/down, the wheel and a click do not count: they are
// browsing, not going places. The keys left wait in the model until the
// root takes them (TakeLeft), right after the key that moved: a message
// could arrive after the next key ([ among them) and push out of order.

// Selected returns the key under the cursor (a prefix or a stored key);
// while a jump walks to a key, that key. False on an undecodable row or
// an empty tree.
func (m Model) Selected() (codec.Key, bool) {
	if m.jump != nil {
		return m.jump.target, true
	}
	if n := m.selected(); n != nil && n.kind == nodePart {
		return n.key, true
	}
	return nil, false
}

// leftPlace records that the cursor left from (if it was on a key) for
// somewhere else.
func (m *Model) leftPlace(from codec.Key, ok bool) {
	if !ok {
		return
	}
	if to, tok := m.Selected(); tok && to.Equal(from) && m.edge.toEnd == nil {
		return
	}
	m.left = append(m.left, from)
}

// TakeLeft returns the keys far moves left since it was last called
// (oldest first) and forgets them; the root pushes them on its back stack.
func (m *Model) TakeLeft() []codec.Key {
	out := m.left
	m.left = nil
	return out
}
