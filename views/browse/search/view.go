package search

import (
	"fmt"
	"strings"

	"kvdeck/codec"
	"kvdeck/views/widgets"
)

// inner is the width of the pane's inside.
func (m Model) inner() int { return m.width - m.styles.Pane.GetHorizontalFrameSize() }

// View is the entry pane while the search is shown: the query being
// typed, or its matches.
func (m Model) View() string {
	st := m.styles
	where := "every key"
	if m.prefix != nil {
		where = codec.Format(m.prefix)
	}
	if m.typing && m.prefix != nil {
		where += " (tab: every key)"
	} else if m.typing && m.near != nil {
		where += " (tab: only under the selection)"
	}
	lines := []string{st.PaneTitle.Render("SEARCH VALUES") + st.Muted.Render(" under "+widgets.ClipText(widgets.Sanitize(where), max(m.inner()-22, 8)))}
	if m.typing {
		lines = m.typingLines(lines)
	} else {
		lines = m.resultLines(lines)
	}
	return widgets.Pane(st.PaneFocused, strings.Join(lines, "\n"), m.width, m.height)
}

// typingLines are the input, why it was refused, and how to write a query.
func (m Model) typingLines(lines []string) []string {
	st, inner := m.styles, m.inner()
	lines = append(lines, m.in.View())
	if m.inputEr != "" {
		lines = append(lines, widgets.ProseLines("✗ "+m.inputEr, st.Error, inner)...)
	}
	lines = append(lines, "")
	return append(lines, widgets.ProseLines(`A jq expression selects the values it yields true (or anything but false and null) for: .plan == "gold", .n > 3, has("holder"). Other text finds the values whose stored JSON text contains it. Only live rows are searched; tab searches every key or only under the selection; enter starts, esc leaves.`, st.Muted, inner)...)
}

// resultLines are where the search is and the matches on screen.
func (m Model) resultLines(lines []string) []string {
	st, inner := m.styles, m.inner()
	lines = append(lines, widgets.ProseLines(widgets.Sanitize(m.status()), st.Muted, inner)...)
	if m.failed > 0 {
		lines = append(lines, widgets.ProseLines(fmt.Sprintf("the expression failed on %d value(s), first %s", m.failed, widgets.Sanitize(m.firstEr)), st.Warn, inner)...)
	}
	rows := max(m.height-st.Pane.GetVerticalFrameSize()-len(lines), 1)
	off := widgets.ScrollTo(0, m.cur, rows, len(m.results))
	for i := off; i < min(off+rows, len(m.results)); i++ {
		e := m.results[i]
		k := widgets.Line{{Text: "(undecodable)", Style: st.Warn}}
		if e.KeyErr == nil {
			k = widgets.KeySpans(st, e.Key)
		}
		line := append(widgets.Line{{Text: widgets.Gutter(i == m.cur) + " ", Style: st.Accent}}, k...)
		line = append(line, widgets.Span{Text: "  " + widgets.Sanitize(strings.Join(strings.Fields(string(e.Value)), " ")), Style: st.Muted})
		text := widgets.FitWidth(line.Render(i == m.cur), inner)
		if i == m.cur {
			text = st.Selected.Render(text)
		}
		lines = append(lines, text)
	}
	return lines
}

// status says what the search found and how it goes on.
func (m Model) status() string {
	status := fmt.Sprintf("%s · %d match(es) in %d row(s)", m.matcher, len(m.results), m.scanned)
	if m.matcher.Narrows() {
		// The server compared the text: only the matches were read.
		status = fmt.Sprintf("%s · %d match(es), found by the database", m.matcher, len(m.results))
	}
	switch {
	case m.running:
		status += " · searching… (esc stops)"
	case m.err != nil:
		status += " · n resumes after ✗ " + m.err.Error()
	case m.cursor != "":
		status += " · n searches on"
	default:
		status += " · done"
	}
	return status + " · s another query"
}
