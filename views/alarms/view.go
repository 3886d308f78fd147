package alarms

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// alarmsNote is said plainly under the alarms: what no look can show.
const alarmsNote = "An alarm dropped after its last failed retry leaves no trace: no view can show it."

// Layout: classes on the left; on the right the time line, the alarms,
// and the selected alarm (or the form, or the last fire).
func (m Model) leftWidth() int  { return min(max(m.Width*2/9, 22), 30) }
func (m Model) rightWidth() int { return m.Width - m.leftWidth() }
func (m Model) rightInner() int { return m.rightWidth() - m.Styles.Pane.GetHorizontalFrameSize() }
func (m Model) innerHeight() int {
	return m.Height - m.Styles.Pane.GetVerticalFrameSize()
}
func (m Model) classRows() int {
	if m.filter.View() != "" {
		return max(m.innerHeight()-3, 1) // the filter line
	}
	return max(m.innerHeight()-2, 1)
}
func (m Model) detailRows() int {
	n := min(10, max(m.innerHeight()/3, 4))
	if m.Form != nil {
		n = max(n, len(m.Form.View(m.rightInner())))
	}
	return n
}

// entryRows: the right pane less the title, the time line (3), the
// header, the rule, the detail, the hint and the note (those that did not
// fold away).
func (m Model) entryRows() int { return m.entryRowsAt(m.folds()) }

func (m Model) entryRowsAt(folds coordkit.Fold) int {
	fixed := 8
	switch {
	case folds >= coordkit.FoldChart: // the time line
		fixed -= 5
	case folds >= coordkit.FoldHint:
		fixed -= 2
	case folds >= coordkit.FoldNote:
		fixed--
	}
	return max(m.innerHeight()-fixed-m.detailRows(), 1)
}

// folds is how much of the right pane folds away at this height, until
// the alarm list shows coordkit.MinRows rows: the note, the hint, the time
// line (the chart).
func (m Model) folds() coordkit.Fold { return coordkit.Folds(m.entryRowsAt) }

// alarmColumns are the alarm list's columns; the id takes the spare room;
// the retry count, the due time and then the flags give way on narrow
// screens (lateness and the glyph stay; the detail shows the rest).
var alarmColumns = []widgets.Column{
	{Title: "", Width: 3}, {Title: "DUE AT (UTC)", Width: 18, Drop: 2}, {Title: "", Width: 10},
	{Title: "ID", Width: 0}, {Title: "RETRY", Width: 5, Drop: 1}, {Title: "FLAGS", Width: 18, Drop: 3},
}

// View renders the classes and the selected class.
func (m Model) View() string {
	if v, ok := m.Cover(50, 14); ok {
		return v
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, m.classesView(), m.classView())
}

// classesView renders the left pane.
func (m Model) classesView() string {
	st := m.Styles
	w := m.leftWidth() - st.Pane.GetHorizontalFrameSize()
	classes := m.shownClasses()
	lines := coordkit.GroupsHead(st, "CLASSES", len(classes), m.filter, w)
	switch unready := m.Unready(w); {
	case unready != nil:
		lines = append(lines, unready...)
	case len(classes) == 0:
		lines = append(lines, coordkit.Empty(st, m.filter, "No alarms: no due entry and no by-id record.", w)...)
	}
	from, to := m.lists.Groups.Window(len(classes), m.classRows())
	active := m.Focused && !m.lists.OnItems && m.Form == nil
	for i := from; i < to; i++ {
		lines = append(lines, m.classLine(classes[i], i == m.lists.Groups.Cur, active, w))
	}
	box := widgets.PaneBox(st, active)
	return widgets.Pane(box, strings.Join(lines, "\n"), m.leftWidth(), m.Height)
}

// classLine is one class: its name, due entries and findings.
func (m Model) classLine(c coord.AlarmClass, selected, active bool, w int) string {
	st := m.Styles
	errs, warns := 0, 0
	for _, it := range classItems(c) {
		switch coordkit.WorstSeverity(m.finds.Of(it.Key)) {
		case coord.SeverityError:
			errs++
		case coord.SeverityWarning:
			warns++
		case coord.SeverityInfo:
		}
	}
	right := widgets.Line{{Text: fmt.Sprintf("%d due", len(c.Due)), Style: st.Count}}
	if errs > 0 {
		right = append(right, widgets.Span{Text: fmt.Sprintf(" ✗%d", errs), Style: st.Error})
	}
	if warns > 0 {
		right = append(right, widgets.Span{Text: fmt.Sprintf(" ⚠%d", warns), Style: st.Warn})
	}
	name := widgets.Gutter(selected) + " " + widgets.Sanitize(c.Class)
	switch {
	case selected && active:
		return st.Selected.Render(widgets.Spread(name, right.Render(true), w))
	case selected:
		return st.Bold.Render(widgets.Spread(name, right.Render(true), w))
	}
	return widgets.Spread(name, right.Render(false), w)
}

// classView renders the right pane.
func (m Model) classView() string {
	st := m.Styles
	w := m.rightInner()
	c, ok := m.class()
	if !ok {
		return widgets.Pane(st.Pane, st.Muted.Render("Select a class on the left."), m.rightWidth(), m.Height)
	}
	now := m.Deps.Now()
	items := m.shownItems(c)
	lines := []string{widgets.Spread(st.PaneTitle.Render(widgets.Sanitize(strings.ToUpper(c.Class)))+"  "+m.classSummary(c, now), m.position(len(items)), w)}
	if m.folds() < coordkit.FoldChart {
		lines = append(lines, m.timelineLines(items, now, w)...)
	}
	t := widgets.NewTable(alarmColumns, w)
	lines = append(lines, t.Header(st))
	from, to := m.lists.Items.Window(len(items), m.entryRows())
	active := m.Focused && m.lists.OnItems && m.Form == nil
	for i := from; i < to; i++ {
		lines = append(lines, t.Row(st, m.alarmCells(items[i], now, i == m.lists.Items.Cur), i == m.lists.Items.Cur, active))
	}
	for len(lines) < 2+len(m.shownTimeline())+m.entryRows() {
		lines = append(lines, "")
	}
	lines = append(lines, st.Muted.Render(strings.Repeat("─", w)))
	lines = append(lines, m.lowerLines(c, w)...)
	box := widgets.PaneBox(st, active || m.Form != nil)
	return widgets.Pane(box, strings.Join(lines, "\n"), m.rightWidth(), m.Height)
}

// classSummary counts due entries, late ones and by-id records at now.
func (m Model) classSummary(c coord.AlarmClass, now int64) string {
	late := 0
	for _, d := range c.Due {
		if d.EpochMs <= now {
			late++
		}
	}
	st := m.Styles
	text := st.Muted.Render(fmt.Sprintf("%d due entr%s · ", len(c.Due), plural(len(c.Due), "y", "ies")))
	lateStyle := st.Muted
	if late > 0 {
		lateStyle = st.Warn
	}
	return text + lateStyle.Render(fmt.Sprintf("%d overdue", late)) + st.Muted.Render(fmt.Sprintf(" · %d by-id record(s)", len(c.ByID)))
}

// position is "3/7" for the alarm list.
func (m Model) position(n int) string {
	return coordkit.Position(m.Styles, m.marks, m.lists.Items.Cur, n)
}

// shownTimeline is the time line as drawn (nil when folded away).
func (m Model) shownTimeline() []string {
	if m.folds() >= coordkit.FoldChart {
		return nil
	}
	return m.timelineLines(m.items(), m.Deps.Now(), m.rightInner())
}

// timelineLines draws the class's alarms on a time line with now.
func (m Model) timelineLines(items []alarmItem, now int64, w int) []string {
	marks := make([]widgets.TimelineMark, 0, len(items))
	for i, it := range items {
		if it.Problem != "" {
			continue // its time cannot be read
		}
		glyph, style, rank := m.alarmGlyph(it, now)
		marks = append(marks, widgets.TimelineMark{At: it.EpochMs, Glyph: glyph, Style: style, Rank: rank, Selected: m.lists.OnItems && i == m.lists.Items.Cur})
	}
	return widgets.Timeline(m.Styles, now, marks, w)
}

// alarmGlyph is how an alarm shows on the time line: ✗ never fires,
// ◆ poison, ○ stale or malformed, ● due (late ones in warning colour).
func (m Model) alarmGlyph(it alarmItem, now int64) (string, lipgloss.Style, int) {
	st := m.Styles
	switch {
	case it.byID && it.Problem == "":
		return "✗", st.Error, 4
	case it.Poison:
		return "◆", st.Error, 3
	case it.Problem != "" || !it.Matched || it.dupes > 1:
		return "○", st.Warn, 2
	case it.EpochMs <= now:
		return "●", st.Warn, 1
	}
	return "●", st.Accent, 0
}

// alarmCells are one alarm's cells at now.
func (m Model) alarmCells(it alarmItem, now int64, selected bool) []widgets.Line {
	st := m.Styles
	glyph, gstyle, _ := m.alarmGlyph(it, now)
	retry := fmt.Sprint(it.RetryCount)
	if it.Poison {
		retry = fmt.Sprintf("%d/%d", it.RetryCount, coord.MaxAlarmRetries)
	}
	at, rel := widgets.TableTimeCell(it.EpochMs), widgets.RelativeTo(it.EpochMs, now, "late")
	relStyle := st.Muted
	switch {
	case it.Problem != "":
		at, rel = "?", ""
	case it.byID:
		rel = ""
	case it.EpochMs <= now && widgets.MsUntil(now, it.EpochMs) > coord.PollerGrace:
		relStyle = st.Warn
	}
	return []widgets.Line{
		{{Text: widgets.Gutter(selected), Style: gstyle}, {Text: m.marks.Glyph(codec.Format(it.Key)), Style: st.Accent}, {Text: glyph, Style: gstyle}},
		{{Text: at, Style: st.Text}},
		{{Text: rel, Style: relStyle}},
		{{Text: widgets.Sanitize(it.ID), Style: st.Text}},
		{{Text: retry, Style: st.Text}},
		m.alarmFlags(it, now),
	}
}

// alarmFlags names what is wrong with an alarm, worst first.
func (m Model) alarmFlags(it alarmItem, now int64) widgets.Line {
	st := m.Styles
	var out widgets.Line
	add := func(text string, style lipgloss.Style) {
		if len(out) > 0 {
			out = append(out, widgets.Span{Text: " ", Style: st.Text})
		}
		out = append(out, widgets.Span{Text: text, Style: style})
	}
	switch {
	case it.Problem != "":
		add("malformed", st.Warn)
	case it.byID:
		add("never-fires", st.Error)
	case !it.Matched:
		add("orphan", st.Warn)
	}
	if it.dupes > 1 {
		add(fmt.Sprintf("duplicate×%d", it.dupes), st.Warn)
	}
	if it.Poison {
		add("poison", st.Error)
	}
	if !it.byID && it.Problem == "" && it.EpochMs <= now {
		add("overdue", st.Warn)
	}
	return out
}

// plural picks the singular or plural ending for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
