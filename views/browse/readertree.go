package browse

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views"
	"kvdeck/views/widgets"
)

// T in the reader shows the value as a foldable JSON tree (issue 23
// point 4: large objects), parsed in a command from the entry's read,
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
	r := m.reader
	e := m.entry.e
	switch {
	case r.tree.on:
		r.tree.on = false
		return nil
	case r.tree.t != nil && r.tree.ver == e.Ver:
		r.tree.on = true
		return nil
	case m.entry.size > widgets.JSONTreeMaxBytes:
		r.note = fmt.Sprintf("%s is too large for the tree (it parses up to %s): read it here, or | to a pager",
			widgets.BytesText(m.entry.size), widgets.BytesText(widgets.JSONTreeMaxBytes))
		return nil
	}
	r.gen++
	r.tree = readerTree{on: true, busy: true, gen: r.gen, ver: e.Ver}
	value, session, gen, src, cut := e.Value, m.deps.Session, r.gen, m.deps.Store, m.entry.cut
	return func() tea.Msg {
		if cut { // the pane holds only the head
			ctx, cancel := context.WithTimeout(context.Background(), views.ReadTimeout)
			whole, err := readWhole(ctx, src, e.Raw, e.Ver)
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
	r := m.reader
	if r == nil || msg.session != m.deps.Session || msg.gen != r.tree.gen || !r.tree.busy {
		return m, nil
	}
	r.tree.busy = false
	if msg.err != nil {
		r.tree.on = false
		r.note = "no tree: the value is not JSON"
		if errors.Is(msg.err, widgets.ErrTreeTooLarge) {
			r.note = msg.err.Error() + ": read it here, or | to a pager"
		}
		return m, nil
	}
	r.tree.t = msg.tree
	return m, nil
}

// handleTree moves in the tree and folds it.
func (m Model) handleTree(msg tea.KeyMsg) (Model, tea.Cmd) {
	r, k := m.reader, m.keys.Reader
	t := r.tree.t
	if t == nil { // still parsing
		if key.Matches(msg, k.Tree) || key.Matches(msg, k.Close) {
			r.tree = readerTree{}
		}
		return m, nil
	}
	rows := m.entryRows()
	switch {
	case key.Matches(msg, k.Tree), key.Matches(msg, k.Close):
		r.tree.on = false
	case key.Matches(msg, k.Up):
		t.Move(-1)
	case key.Matches(msg, k.Down):
		t.Move(1)
	case key.Matches(msg, k.PageUp):
		t.Move(-rows)
	case key.Matches(msg, k.PageDown), key.Matches(msg, k.Page):
		t.Move(rows)
	case key.Matches(msg, k.Top):
		t.Move(-1 << 30)
	case key.Matches(msg, k.Bottom):
		t.Move(1 << 30)
	case key.Matches(msg, k.Toggle):
		t.Toggle()
	case key.Matches(msg, k.Unfold):
		t.Unfold()
	case key.Matches(msg, k.Fold):
		t.Fold()
	case key.Matches(msg, k.Pager):
		return m, m.startPager()
	}
	return m, nil
}

// jsonTreeView is the entry pane showing the JSON tree.
func (m Model) jsonTreeView(w, h int) string {
	r, st := m.reader, m.styles
	title := st.PaneTitle.Render("VALUE TREE ")
	var body []string
	if t := r.tree.t; t == nil {
		title += st.Muted.Render(fmt.Sprintf("parsing %s…", widgets.BytesText(m.entry.size)))
	} else {
		title += st.Muted.Render(fmt.Sprintf("%d/%d · %d values ", t.Cursor()+1, t.Lines(), t.Nodes())) +
			st.Muted.Render("enter fold · → ← · T text · esc")
		body = t.View(st, m.entryInner(), m.entryRows())
	}
	lines := append([]string{widgets.FitWidth(title, m.entryInner())}, body...)
	return widgets.Pane(st.PaneFocused, strings.Join(lines, "\n"), w, h)
}

// readerHelp is the reader's short help: the tree's keys or the text's.
func (m Model) readerHelp() []key.Binding {
	k := m.keys.Reader
	if m.reader.tree.on {
		return []key.Binding{k.Toggle, k.Unfold, k.Fold, k.Tree, k.Pager, k.Close}
	}
	return []key.Binding{k.PageDown, k.PageUp, k.Page, k.Find, k.Next, k.Prev, k.Lines, k.Tree, k.Pager, k.Close}
}
