package browse

import (
	"bytes"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
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
	// follow: the selected row left the tree because a reload dropped the
	// pages it was in (followSelection); the jump loads the next pages
	// until it is back, instead of seeking, and ends quietly if it is gone.
	follow bool
	// probing: the store is asked where target stands (probe.go); the
	// walk waits for the answer, and keys pressed meanwhile are held.
	probing bool
	// exists: the store holds target (or keys under it), so a level that
	// lacks it was read before it was written: it is read again.
	exists bool
	// reread is the depth at which a level was read again from its
	// first child for target (-1 when none).
	reread int
}

// newJump starts a jump to target.
func newJump(target codec.Key) *jumpState {
	return &jumpState{target: target, seekDepth: -1, reread: -1}
}

// advanceJump walks from the root towards the target as far as the loaded
// tree allows and asks for the next page it needs. A child beyond the
// loaded pages is found with one seek straight to it (the level is then
// shown from there, with an "earlier" line above) instead of paging
// through everything before it.
func (m *Model) advanceJump() tea.Cmd {
	j := m.jump
	if j.probing {
		return nil
	}
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
		if child == nil {
			return m.seekChild(n, d)
		}
		n = child
	}
	return m.land(n)
}

// seekChild asks for the next page that may hold the jump's child at
// depth d, missing from the loaded children of its level n (or says it
// is not there).
func (m *Model) seekChild(n *node, d int) tea.Cmd {
	j := m.jump
	if n.loading {
		// A reload in flight (after a write, the new key's level)
		// may bring the child: its answer advances the jump again.
		return nil
	}
	if j.follow {
		if n.more == nil {
			return m.endFollow()
		}
		return m.loadLevel(n, len(n.pages), n.more, false)
	}
	partial := n.more != nil || (len(n.pages) > 0 && n.pages[0].after != nil) || n.anyStale()
	if !partial && j.exists && j.reread != d && j.seekDepth != d {
		// The level was read whole before the key was written: read it
		// again from its start, as far as it was and a page more.
		j.reread = d
		return m.loadLevelLimit(n, n.loadedKids()+m.pageSize())
	}
	if !partial && j.exists && j.seekDepth != d {
		partial = true // more was written than the reread reached
	}
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

// land ends the jump on n, its target, in view.
func (m *Model) land(n *node) tea.Cmd {
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
	if n := len(m.held.keys); n > 0 {
		text += fmt.Sprintf(" (%d key(s) pressed meanwhile ignored)", n)
	}
	m.held.keys, m.held.on = nil, nil
	return tea.Batch(m.relayout(), views.Flash(views.FlashError, "%s", text))
}

// followSelection starts a follow jump when the selected node is missing
// from the tree only because its level's pages past some point were
// dropped by a reload (applyPage): its level is open and continues, and
// the node sorts after the level's last loaded child. The cursor waits on
// the level's "more" line, where the node will reappear, and returns to it
// when the pages have loaded again. It reports whether it started.
func (m *Model) followSelection() bool {
	sel := m.entry.node
	if m.jump != nil || sel == nil || sel.kind != nodePart || m.sel.kind != rowNode {
		return false
	}
	n := m.root
	for d, part := range sel.key {
		if !n.expanded || !n.loaded {
			return false
		}
		if child := n.find(part); child != nil {
			n = child
			continue
		}
		last := n.lastKid()
		enc, err := codec.Encode(sel.key[:d+1])
		if n.more == nil || n.filter != "" || last == nil || err != nil || bytes.Compare(enc, last.raw) <= 0 {
			return false
		}
		m.jump = newJump(sel.key)
		m.jump.follow = true
		for i, r := range m.rows {
			if r.kind == rowMore && r.n == n {
				m.cursor = i
			}
		}
		return true
	}
	return false
}

// endFollow ends a follow jump whose key is gone (deleted meanwhile): the
// cursor stays where it waited. Only held keys are worth a word.
func (m *Model) endFollow() tea.Cmd {
	gone := codec.Format(m.jump.target)
	m.jump = nil
	if n := len(m.held.keys); n > 0 {
		return m.failJump("%s is gone", gone)
	}
	return m.relayout()
}

// maxHeld bounds the keys held during a jump.
const maxHeld = 32

// hold keeps a key pressed while a jump is in flight: until it lands, the
// cursor is on the row it had before (or on the first row of a tree still
// loading), and o, e, d or j there would act on the wrong row. The key is
// replayed when the jump lands (replayHeld).
func (m *Model) hold(msg tea.KeyMsg) {
	if len(m.held.keys) < maxHeld {
		m.held.keys = append(m.held.keys, msg)
	}
}

// holding reports whether a key pressed now waits behind held keys: a
// jump is in flight, or it landed and the held keys wait for the entry.
func (m Model) holding() bool { return m.jump != nil || len(m.held.keys) > 0 }

// replayHeld hands the held keys to update once the jump has landed, in
// the order they were pressed, after cmd. On a stored key they wait for
// its entry: d, e, c, y, Y, v or E before it is read would only say that
// it is not loaded yet (a failed read drops them). A replayed key that
// moves to another stored key makes the rest wait for that one's entry;
// one that starts another jump makes them wait for it; one that leaves
// Browse (leaves) drops them: they were meant for Browse.
func (m Model) replayHeld(cmd tea.Cmd) (Model, tea.Cmd) {
	cmds := []tea.Cmd{cmd}
	for m.jump == nil && len(m.held.keys) > 0 {
		if m.held.on != nil && *m.held.on != m.sel {
			// A reload took the cursor off the row (its key deleted).
			cmds = append(cmds, m.dropHeld("the cursor left the row they waited for"))
			break
		}
		if m.entry.wanted && !m.entry.loaded {
			sel := m.sel
			m.held.on = &sel
			break // the entry's answer replays them (onEntry, via Update)
		}
		m.held.on = nil
		if m.entry.wanted && (m.entry.err != nil || !m.entry.found) {
			cmds = append(cmds, m.dropHeld(m.entryFailure()))
			break
		}
		k := m.held.keys[0]
		m.held.keys = m.held.keys[1:]
		rest := m.held.keys
		m.held.keys = nil
		leaves := m.leaves(k)
		var c tea.Cmd
		m, c = m.update(k)
		cmds = append(cmds, c)
		if leaves != "" && len(rest) > 0 {
			cmds = append(cmds, views.Flash(views.FlashInfo, "%s (%d key(s) pressed after it ignored)", leaves, len(rest)))
			break
		}
		m.held.keys = append(m.held.keys, rest...)
	}
	return m, tea.Batch(cmds...)
}

// dropHeld drops the held keys, which cannot act on what they were
// pressed for, and says why.
func (m *Model) dropHeld(why string) tea.Cmd {
	n := len(m.held.keys)
	m.held.keys, m.held.on = nil, nil
	return views.Flash(views.FlashError, "%s (%d key(s) pressed meanwhile ignored)", why, n)
}

// entryFailure says why the selected entry, read, cannot be acted on.
func (m Model) entryFailure() string {
	what := "the row"
	if m.entry.key != nil {
		what = codec.Format(m.entry.key)
	}
	if m.entry.err != nil {
		return "cannot read " + what + ": " + m.entry.err.Error()
	}
	return what + " is gone"
}

// leaves says, when key k pressed now hands the keys to the root, what it
// does there ("" otherwise): o on a dwk_* key shows another tab, c on a
// loaded entry the Compose tab, d on one asks in the root's dialog
// (read-only, d is refused and leaves nothing). The keys after it are
// not Browse's.
func (m Model) leaves(k tea.KeyMsg) string {
	loaded := m.entry.loaded && m.entry.found
	switch {
	case key.Matches(k, m.keys.Record):
		if n := m.selected(); n != nil && n.kind == nodePart && isRecordKey(n.key) {
			return k.String() + " shows another tab"
		}
	case key.Matches(k, m.keys.Compose) && loaded:
		return k.String() + " shows Compose"
	case key.Matches(k, m.keys.Delete) && loaded && !m.readOnly:
		return k.String() + " asks first"
	}
	return ""
}
