package browse

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views"
)

// :goto reads the store before it walks the tree: the
// tree holds what was read at the last refresh, so a key written a moment
// ago was "no key" until the next one, and a key deleted since was shown
// as if it were there. The probe says where the key stands now: a row is
// at it (expired unswept rows included), only keys under it, or it is not
// in the store; then, as Activity does for a deleted event, the jump goes
// where it was: the deepest level that still holds keys, on its neighbour.

// probed answers probeGoto.
type probed struct {
	session int
	key     codec.Key
	exists  bool      // a row at the key, or keys under it
	target  codec.Key // where to go when it does not exist (nil: nowhere)
	err     error
}

// probeGoto reads where key stands now: one single-row read when it is
// there, up to two per level walked up when it is not.
func probeGoto(st *store.Store, session int, key codec.Key) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		msg := probed{session: session, key: key}
		_, ok, err := views.FirstRow(ctx, st, store.ListOptions{Prefix: key})
		if err != nil || ok {
			msg.exists, msg.err = ok, err
			return msg
		}
		msg.target, msg.err = views.Neighbour(ctx, st, key)
		return msg
	})
}

// onProbed walks to the key, or, when it is not in the store, says so and
// walks to where it was.
func (m Model) onProbed(msg probed) (Model, tea.Cmd) {
	j := m.jump
	if msg.session != m.deps.Session || j == nil || !j.probing || codec.Compare(j.target, msg.key) != 0 {
		return m, nil
	}
	j.probing = false
	key := codec.Format(msg.key)
	switch {
	case msg.err != nil:
		out := m.failJump("cannot look %s up: %v", key, msg.err)
		return m, out
	case msg.exists:
		j.exists = true
		out := m.advanceJump()
		return m, out
	case msg.target == nil:
		out := m.failJump("no key %s: not in the store, which holds no key now", key)
		return m, out
	}
	// The keys held were meant for the key, which is not there.
	text := fmt.Sprintf("no key %s: not in the store (deleted, or never written); showing where it would be, beside %s", key, msg.target[len(msg.target)-1])
	if n := len(m.held.keys); n > 0 {
		text += fmt.Sprintf(" (%d key(s) pressed meanwhile ignored)", n)
	}
	m.held.keys, m.held.on = nil, nil
	m.jump = newJump(msg.target)
	m.jump.exists = true
	out := tea.Batch(m.advanceJump(), views.Flash(views.FlashInfo, "%s", text))
	return m, out
}
