package reader

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views"
	"kvdeck/views/browse/entry"
	"kvdeck/views/widgets"
)

// T in the reader shows the value as a foldable JSON tree (large
// objects read better folded), parsed in a command from the entry's read,
// for values up to widgets.JSONTreeMaxBytes (8 MiB) and a million
// nodes: past them the reader says so and keeps its text view (and |).
// In the tree, enter folds or unfolds the node, → unfolds (then steps
// in), ← folds (then goes to the parent); T or esc goes back to the text.

// readerTree is the reader's tree view.
type readerTree struct {
	on   bool
	busy bool
	gen  int
	ver  int64 // the value the tree is of
	t    *widgets.JSONTree
}

// treeParsed answers parseTree.
type treeParsed struct {
	session, gen int
	ver          int64
	tree         *widgets.JSONTree
	err          error
}

// toggleTree shows the tree (parsing the value first) or the text again.
func (m *Model) toggleTree() tea.Cmd {
	e := m.row.E
	switch {
	case m.tree.on:
		m.tree.on = false
		return nil
	case m.tree.t != nil && m.tree.ver == e.Ver:
		m.tree.on = true
		return nil
	case m.row.Size > widgets.JSONTreeMaxBytes:
		m.note = fmt.Sprintf("%s is too large for the tree (it parses up to %s): read it here, or | to a pager",
			widgets.BytesText(m.row.Size), widgets.BytesText(widgets.JSONTreeMaxBytes))
		return nil
	}
	m.gen++
	m.tree = readerTree{on: true, busy: true, gen: m.gen, ver: e.Ver}
	value, session, gen, src, cut := e.Value, m.deps.Session, m.gen, m.deps.Store, m.row.Cut
	return func() tea.Msg {
		if cut { // the pane holds only the head
			ctx, cancel := context.WithTimeout(context.Background(), views.ReadTimeout)
			whole, err := entry.ReadWhole(ctx, src, e.Raw, e.Ver)
			if cancel(); err != nil {
				return treeParsed{session: session, gen: gen, ver: e.Ver, err: err}
			}
			value = whole.Value
		}
		t, err := widgets.ParseJSONTree(value)
		return treeParsed{session: session, gen: gen, ver: e.Ver, tree: t, err: err}
	}
}

// onTreeParsed shows the tree, or says why there is none.
func (m Model) onTreeParsed(msg treeParsed) (Model, tea.Cmd) {
	if !m.open || msg.session != m.deps.Session || msg.gen != m.tree.gen || !m.tree.busy {
		return m, nil
	}
	m.tree.busy = false
	if msg.err != nil {
		m.tree.on = false
		m.note = "no tree: the value is not JSON"
		if errors.Is(msg.err, widgets.ErrTreeTooLarge) {
			m.note = msg.err.Error() + ": read it here, or | to a pager"
		}
		return m, nil
	}
	m.tree.t = msg.tree
	return m, nil
}

// handleTree moves in the tree and folds it.
func (m Model) handleTree(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.KeyMap
	t := m.tree.t
	if t == nil { // still parsing
		if key.Matches(msg, k.Tree) || key.Matches(msg, k.Close) {
			m.tree = readerTree{}
		}
		return m, nil
	}
	if key.Matches(msg, k.Tree) || key.Matches(msg, k.Close) {
		m.tree.on = false
		return m, nil
	}
	if delta, ok := navDelta(msg, k, m.rows()); ok {
		t.Move(delta)
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Toggle):
		t.Toggle()
	case key.Matches(msg, k.Unfold):
		t.Unfold()
	case key.Matches(msg, k.Fold):
		t.Fold()
	case key.Matches(msg, k.Pager):
		return m, m.OpenPipe(m.row)
	}
	return m, nil
}

// jsonTreeView is the entry pane showing the JSON tree.
func (m Model) jsonTreeView(w, h int) string {
	st := m.styles
	title := st.PaneTitle.Render("VALUE TREE ")
	var body []string
	if t := m.tree.t; t == nil {
		title += st.Muted.Render(fmt.Sprintf("parsing %s…", widgets.BytesText(m.row.Size)))
	} else {
		title += st.Muted.Render(fmt.Sprintf("%d/%d · %d values ", t.Cursor()+1, t.Lines(), t.Nodes())) +
			st.Muted.Render("enter fold · → ← · T text · esc")
		body = t.View(st, m.inner(), m.rows())
	}
	lines := append([]string{widgets.FitWidth(title, m.inner())}, body...)
	return widgets.Pane(st.PaneFocused, strings.Join(lines, "\n"), w, h)
}
