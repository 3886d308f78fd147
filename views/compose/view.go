package compose

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// View renders the operations list (left) and the editor or the selected
// operation (right).
func (m Model) View() string {
	if m.width < 40 || m.height < 8 {
		return widgets.TooSmall
	}
	box := widgets.PaneBox(m.styles, m.focused && m.editor == nil)
	left := widgets.Pane(box, strings.Join(m.listLines(), "\n"), m.listWidth(), m.height)
	right := widgets.Pane(m.styles.Pane, m.sideView(), m.width-m.listWidth(), m.height)
	if m.editor != nil {
		right = widgets.Pane(m.styles.PaneFocused, m.editor.view(), m.width-m.listWidth(), m.height)
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, left, right)
}

func (m Model) listWidth() int { return m.width * 3 / 5 }
func (m Model) listInner() int { return m.listWidth() - m.styles.Pane.GetHorizontalFrameSize() }
func (m Model) sideInner() int {
	return m.width - m.listWidth() - m.styles.Pane.GetHorizontalFrameSize()
}

// listLines is the left pane: the operations, the budget, the outcome.
func (m Model) listLines() []string {
	st, w := m.styles, m.listInner()
	pos := ""
	if len(m.ops) > 0 {
		pos = st.Muted.Render(fmt.Sprintf("%d/%d", m.cursor+1, len(m.ops)))
	}
	out := []string{widgets.Spread(st.PaneTitle.Render(fmt.Sprintf("COMPOSE · %d operation(s)", len(m.ops))), pos, w)}
	if len(m.ops) == 0 {
		out = append(out, "")
		out = append(out, widgets.ProseLines(views.Hint("Nothing staged yet. %s adds a check, %s a set, %s a delete; %s loads a saved composition. ", m.keys.AddCheck, m.keys.AddSet, m.keys.AddDelete, m.keys.Load)+
			"In Browse, c composes from the selected key (a check on its stamp and a set of its value).", st.Muted, w)...)
	}
	keyW, alone := m.keyWidth(w)
	for i, op := range m.ops {
		out = append(out, m.opLine(i, op, keyW, alone, w))
	}
	out = append(out, "")
	out = append(out, m.budgetLines(w)...)
	out = append(out, "")
	out = append(out, m.outcomeLines(w)...)
	if m.prompting != "" {
		rows := m.height - m.styles.Pane.GetVerticalFrameSize()
		for len(out) < rows-1 {
			out = append(out, "")
		}
		out = append(out[:rows-1], m.prompt.View())
	}
	return out
}

// keyWidth is the key column's width in a list w cells wide: half the
// list, more for the keys when what follows them needs less (up to
// opRestWant of it), and never less than the keys need to read
// (widgets.KeyCellMin: "users" and "bob" whole). The stamp or value
// beside it gives way, whole (alone) when fewer than opRestMin cells
// would be left of it.
func (m Model) keyWidth(w int) (kw int, alone bool) {
	least, whole, rest := 0, 0, 0
	for _, op := range m.ops {
		least = max(least, widgets.KeyCellMin(op.key))
		whole = max(whole, ansi.StringWidth(widgets.KeyCell(m.styles, op.key, 1<<16).Render(true)))
		rest = max(rest, ansi.StringWidth(m.opRest(op).Render(true)))
	}
	kw = max(w/2-12, least, min(whole, w-opPrefix-2-min(rest, opRestWant)), 12)
	if w-opPrefix-kw-2 < opRestMin {
		return max(w-opPrefix, 12), true
	}
	return kw, false
}

// opPrefix is the width of an operation line before its key: the
// gutter, the number, the kind.
const opPrefix = 14

// opRestMin is the fewest cells worth giving the stamp or value of an
// operation line ("expects …" shows nothing of the stamp in fewer);
// opRestWant the most it takes from a key that would not fit.
const (
	opRestMin  = 10
	opRestWant = 28
)

// opLine is one operation of the list: the key shortened by part (the
// ids of a prefix differ at their end), then, unless the key takes the
// line, what the operation expects or sets.
func (m Model) opLine(i int, op stagedOp, keyW int, alone bool, w int) string {
	st := m.styles
	gutter := "  "
	if i == m.cursor {
		gutter = "❯ "
	}
	l := widgets.Line{{Text: fmt.Sprintf("%s%2d  %-7s ", gutter, i+1, op.kind), Style: st.Text}}
	key := widgets.FitWidth(widgets.KeyCell(st, op.key, keyW).Render(false), keyW)
	if alone {
		l = append(l, widgets.Span{Text: key, Style: st.Text})
	} else {
		l = append(l, widgets.Span{Text: key + "  ", Style: st.Text})
		l = append(l, m.opRest(op)...)
	}
	if i == m.cursor && m.focused && m.editor == nil {
		return st.Selected.Render(widgets.FitWidth(l.Render(true), w))
	}
	return widgets.FitWidth(l.Render(false), w)
}

// opRest is what an operation line shows after its key: the stamp a
// check expects, the value a set writes.
func (m Model) opRest(op stagedOp) widgets.Line {
	st := m.styles
	var l widgets.Line
	switch op.kind {
	case opCheck:
		style := st.Text
		if op.refreshed {
			style = st.Accent
		}
		l = append(l, widgets.Span{Text: "expects " + usertext.StampText(op.stamp), Style: style})
		if op.refreshed {
			l = append(l, widgets.Span{Text: " (refreshed)", Style: st.Accent})
		}
	case opSet:
		l = append(l, widgets.Span{Text: widgets.Sanitize(string(op.value)), Style: st.JSONString})
		if op.expireIn != nil {
			l = append(l, widgets.Span{Text: " · expires " + widgets.Human(max(*op.expireIn, 0)), Style: st.Muted})
		}
	case opDel:
	}
	return l
}

// budgetLines weighs the composition against the usual limits.
func (m Model) budgetLines(w int) []string {
	st := m.styles
	b := measure(m.ops)
	out := []string{st.Label.Render("BUDGET") + st.Muted.Render("  usual Deno KV style limits, as guidance (not enforced here)")}
	out = append(out, widgets.ProseLines(fmt.Sprintf("checks %d · mutations %d/%d", b.checks, b.mutations, limitMutations), st.Text, w)...)
	out = append(out, widgets.ProseLines(fmt.Sprintf("keys %s, largest %d/%d B · values %s, largest %s/64 KiB",
		widgets.BytesText(int64(b.keyBytes)), b.maxKey, limitKey, widgets.BytesText(int64(b.valBytes)), widgets.BytesText(int64(b.maxVal))), st.Text, w)...)
	if over := b.over(); len(over) > 0 {
		return append(out, widgets.ProseLines("⚠ "+strings.Join(over, "; "), st.Warn, w)...)
	}
	return out
}

// outcomeLines show the last commit: the stamp, or every check as
// expected vs actual with the first failing one marked.
func (m Model) outcomeLines(w int) []string {
	st := m.styles
	o := m.outcome
	switch {
	case m.busy:
		return []string{st.Muted.Render("working…")}
	case o == nil:
		return nil
	case o.err != nil:
		return widgets.ProseLines("✗ commit failed: "+o.err.Error(), st.Error, w)
	case o.res.OK && o.res.Versionstamp == "":
		return []string{st.OK.Render("✓ committed") + st.Muted.Render(" (deletes only: no versionstamp is issued)")}
	case o.res.OK:
		return []string{st.OK.Render("✓ committed at stamp ") + st.Bold.Render(o.res.Versionstamp)}
	}
	failed := map[int]int{} // check index -> position in Failed
	first := -1
	for i, f := range o.res.Failed {
		failed[f.Index] = i
		if first < 0 || f.Index < first {
			first = f.Index
		}
	}
	out := widgets.ProseLines(fmt.Sprintf("✗ commit failed: %d of %d check(s) did not hold; nothing was written", len(o.res.Failed), len(o.checks)), st.Error, w)
	for i, c := range o.checks {
		mark, note := "  ", ""
		if i == first {
			mark, note = "❯ ", "  ← first failing check"
		}
		head := widgets.Line{{Text: fmt.Sprintf("%scheck %d  ", mark, i+1), Style: st.Text}}
		head = append(head, widgets.KeySpans(st, c.Key)...)
		head = append(head, widgets.Span{Text: note, Style: st.Error})
		out = append(out, widgets.FitWidth(head.Render(false), w))
		detail := st.Muted.Render("    expected "+usertext.StampText(c.Versionstamp)+" · ") + st.OK.Render("held")
		if at, bad := failed[i]; bad {
			detail = st.Muted.Render("    expected ") + st.Text.Render(usertext.StampText(c.Versionstamp)) +
				st.Muted.Render(" · actual ") + st.Error.Render(usertext.StampText(o.res.Failed[at].Actual))
		}
		out = append(out, detail)
	}
	if len(o.res.Failed) == 0 {
		out = append(out, widgets.ProseLines("the failed checks hold again on re-read: a concurrent writer changed the keys meanwhile", st.Muted, w)...)
	}
	if m.keys.Retry.Enabled() {
		out = append(out, "", st.HelpKey.Render(views.KeyName(m.keys.Retry))+st.Text.Render(fmt.Sprintf(" refresh the %d stale check(s) to the stored stamps and commit again", len(o.res.Failed))))
	}
	return out
}

// sideView is the right pane: the selected operation in full.
func (m Model) sideView() string {
	st, w := m.styles, m.sideInner()
	if m.cursor >= len(m.ops) {
		out := []string{st.PaneTitle.Render("ATOMIC COMMIT"), ""}
		out = append(out, widgets.ProseLines("One transaction: every check is evaluated against the state before any mutation; "+
			"if all hold, the mutations apply in order and every set gets the same new versionstamp. "+
			"A check on a stamp holds while a live row has exactly that stamp; a check on absent, while the key is absent or expired.", st.Muted, w)...)
		return strings.Join(out, "\n")
	}
	op := m.ops[m.cursor]
	out := []string{st.PaneTitle.Render(fmt.Sprintf("OP %d: %s", m.cursor+1, strings.ToUpper(op.kind.String())))}
	out = append(out, widgets.FieldLine(st, "key", widgets.KeySpans(st, op.key), w)...)
	out = append(out, widgets.FieldLine(st, "encoded", widgets.Line{{Text: fmt.Sprintf("%d B", len(codec.MustEncode(op.key))), Style: st.Muted}}, w)...)
	switch op.kind {
	case opCheck:
		out = append(out, widgets.FieldLine(st, "expects", widgets.Line{{Text: usertext.StampText(op.stamp), Style: st.Text}}, w)...)
	case opSet:
		ttl := "never"
		if op.expireIn != nil {
			ttl = op.expireIn.String() + " after the commit"
		}
		out = append(out, widgets.FieldLine(st, "expires", widgets.Line{{Text: ttl, Style: st.Text}}, w)...)
		out = append(out, widgets.FieldLine(st, "size", widgets.Line{{Text: widgets.BytesText(int64(len(op.value))), Style: st.Muted}}, w)...)
		out = append(out, "")
		jl, _ := widgets.JSONLines(st, op.value)
		for _, l := range jl {
			for _, wl := range l.Wrap(w, 2) {
				out = append(out, wl.Render(false))
			}
		}
	case opDel:
	}
	return strings.Join(out, "\n")
}
