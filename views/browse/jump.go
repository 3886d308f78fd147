package browse

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// jumpState is a :goto in progress: the levels on the way to target are
// expanded one by one as their children arrive.
type jumpState struct {
	target codec.Key
	// seekDepth is the depth at which a seek past the loaded children was
	// asked for (-1 when none), so that a missing child fails instead of
	// seeking again.
	seekDepth int
}

// newJump starts a jump to target.
func newJump(target codec.Key) *jumpState { return &jumpState{target: target, seekDepth: -1} }

// advanceJump walks from the root towards the target as far as the loaded
// tree allows and asks for the next page it needs. A child beyond the
// loaded pages is found with one seek straight to it (the level is then
// shown from there, with an "earlier" line above) instead of paging
// through everything before it.
func (m *Model) advanceJump() tea.Cmd {
	j := m.jump
	n := m.root
	for d, part := range j.target {
		n.expanded = true
		if !n.loaded {
			if n.loading {
				return nil
			}
			return tea.Batch(m.loadLevel(n, 0, nil, false), m.relayout())
		}
		child := n.find(part)
		if child != nil {
			n = child
			continue
		}
		if n.loading {
			// A reload in flight (after a write, the new key's level)
			// may bring the child: its answer advances the jump again.
			return nil
		}
		partial := n.more != nil || (len(n.pages) > 0 && n.pages[0].after != nil) || n.anyStale()
		if !partial || j.seekDepth == d {
			return m.failJump("no key %s", codec.Format(j.target))
		}
		j.seekDepth = d
		seek, err := codec.Encode(j.target[:d+1])
		if err != nil {
			return m.failJump("cannot go to %s: %v", codec.Format(j.target), err)
		}
		return m.loadLevel(n, 0, seek, true)
	}
	m.jump = nil
	if n == m.root {
		return m.selectRow(0)
	}
	m.sel = ref{kind: rowNode, node: nodePart, raw: string(n.raw)}
	m.rows = flatten(m.root)
	for i, r := range m.rows {
		if r.ref() == m.sel {
			m.cursor = i
		}
	}
	if m.cursor < m.offset || m.cursor >= m.offset+m.treeRows() {
		// Centre the target when it is off screen.
		m.offset = widgets.ClampOffset(m.cursor-m.treeRows()/2, m.treeRows(), len(m.rows))
	}
	return m.placeCursor(m.cursor, true)
}

// jumpFound reports whether a seek made for the jump landed on the target
// child (the first child of the page is the one sought).
func (m *Model) jumpFound(msg childrenLoaded) bool {
	if m.jump == nil || len(msg.prefix) >= len(m.jump.target) {
		return false
	}
	want := m.jump.target[len(msg.prefix)]
	cs := msg.page.Children
	return len(cs) > 0 && !cs[0].Undecodable && cs[0].Part == want
}

// failJump ends the jump and says why; the levels it opened stay open.
// The keys held for the target are dropped: they were not meant for the
// row the cursor stays on.
func (m *Model) failJump(format string, args ...any) tea.Cmd {
	m.jump = nil
	text := fmt.Sprintf(format, args...)
	if n := len(m.held); n > 0 {
		text += fmt.Sprintf(" (%d key(s) pressed meanwhile ignored)", n)
	}
	m.held = nil
	return tea.Batch(m.relayout(), views.Flash(views.FlashError, "%s", text))
}

// maxHeld bounds the keys held during a jump.
const maxHeld = 32

// hold keeps a key pressed while a jump is in flight: until it lands, the
// cursor is on the row it had before (or on the first row of a tree still
// loading), and o, e, d or j there would act on the wrong row. The key is
// replayed when the jump lands (replayHeld).
func (m *Model) hold(msg tea.KeyMsg) {
	if len(m.held) < maxHeld {
		m.held = append(m.held, msg)
	}
}

// replayHeld hands the held keys to Update once the jump has landed, in
// the order they were pressed, after cmd. A key that starts another jump
// holds the keys after it again.
func (m Model) replayHeld(cmd tea.Cmd) (Model, tea.Cmd) {
	if m.jump != nil || len(m.held) == 0 {
		return m, cmd
	}
	keys := m.held
	m.held = nil
	cmds := []tea.Cmd{cmd}
	for _, k := range keys {
		var c tea.Cmd
		m, c = m.Update(k)
		cmds = append(cmds, c)
	}
	return m, tea.Batch(cmds...)
}
