package queues

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/views"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// queuesNote is said plainly under the messages: what no look can show.
const queuesNote = "A message dropped at its last attempt, or lost in a crash, leaves no trace."

// Layout: queues on the left; on the right the queue's title and
// attempts histogram, then its messages and the selected one (or the
// peek, the poll panel, the send form), then the hint and the note.
// leftWidth fits the queue list to its longest name (the message list on
// the right needs the room more: its ids tell messages apart), between 24
// and 38 cells.
func (m Model) leftWidth() int {
	name := len("QUEUE")
	for _, q := range m.queues {
		name = max(name, ansi.StringWidth(widgets.Sanitize(q.Name)))
	}
	// gutter, name, READY, OLDEST, the spaces between, the frame; DELAY
	// when 3/10 of the screen has room for it.
	need := 1 + name + 5 + 6 + 3 + m.Styles.Pane.GetHorizontalFrameSize()
	return max(min(need+6, m.Width*3/10, 38), min(need, 38), 24)
}
func (m Model) rightWidth() int { return m.Width - m.leftWidth() }
func (m Model) rightInner() int { return m.rightWidth() - m.Styles.Pane.GetHorizontalFrameSize() }
func (m Model) innerHeight() int {
	return m.Height - m.Styles.Pane.GetVerticalFrameSize()
}
func (m Model) queueRows() int {
	if m.filter.View() != "" {
		return max(m.innerHeight()-3, 1) // the filter line
	}
	return max(m.innerHeight()-2, 1)
}

// histRows is how many histogram bars the selected queue shows (1-4).
func (m Model) histRows() int {
	q, _ := m.queue()
	return min(max(len(q.Attempts), 1), 4)
}

// bodyRows is the room between the trend line and the hint and note.
func (m Model) bodyRows() int { return m.bodyRowsAt(m.folds()) }

func (m Model) bodyRowsAt(folds coordkit.Fold) int {
	fixed := 1 + m.histRows() + 1 + 2 // title, histogram, trend, hint and note
	switch {
	case folds >= coordkit.FoldChart: // the histogram
		fixed -= 2 + m.histRows()
	case folds >= coordkit.FoldHint:
		fixed -= 2
	case folds >= coordkit.FoldNote:
		fixed--
	}
	return max(m.innerHeight()-fixed, 3)
}

// folds is how much of the right pane folds away at this height, until
// the message list shows coordkit.MinRows rows: the note, the hint, the
// histogram (the chart). The peek, the poll panel and the form take the
// body as it is.
func (m Model) folds() coordkit.Fold { return coordkit.Folds(m.msgRowsAt) }

// shownHistRows is how many lines the histogram takes as drawn.
func (m Model) shownHistRows() int {
	if m.folds() >= coordkit.FoldChart {
		return 0
	}
	return m.histRows()
}

// detailRows is the room of the selected message (or the form).
func (m Model) detailRows() int { return m.detailRowsAt(m.folds()) }

func (m Model) detailRowsAt(folds coordkit.Fold) int {
	n := min(9, max(m.bodyRowsAt(folds)/3, 3))
	if m.Form != nil {
		n = max(n, len(m.Form.View(m.rightInner())))
	}
	return n
}

// msgRows is how many messages the list shows: the body less the table
// header, the rule and the detail.
func (m Model) msgRows() int { return m.msgRowsAt(m.folds()) }

func (m Model) msgRowsAt(folds coordkit.Fold) int {
	return max(m.bodyRowsAt(folds)-2-m.detailRowsAt(folds), 1)
}

var queueColumns = []widgets.Column{
	{Title: "", Width: 1}, {Title: "QUEUE", Width: 0}, {Title: "READY", Width: 5},
	{Title: "DELAY", Width: 5, Drop: 1}, {Title: "OLDEST", Width: 6},
}

var messageColumns = []widgets.Column{
	{Title: "", Width: 3}, {Title: "ID", Width: 18, Grow: true, Max: 36, Middle: true}, {Title: "DUE", Width: 11}, {Title: "ATT", Width: 3, Drop: 2},
	{Title: "FLAGS", Width: 7, Drop: 1}, {Title: "BODY", Width: 0, Drop: 3},
}

// View renders the queues and the selected queue.
func (m Model) View() string {
	if v, ok := m.Cover(50, 14); ok {
		return v
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, m.queuesView(), m.queueView())
}

// queuesView renders the left pane.
func (m Model) queuesView() string {
	st := m.Styles
	w := m.leftWidth() - st.Pane.GetHorizontalFrameSize()
	t := widgets.NewTable(queueColumns, w)
	queues := m.shownQueues()
	lines := append(coordkit.GroupsHead(st, "QUEUES", len(queues), m.filter, w), t.Header(st))
	switch unready := m.Unready(w); {
	case unready != nil:
		lines = append(lines, unready...)
	case len(queues) == 0:
		lines = append(lines, coordkit.Empty(st, m.filter, views.Hint("No messages in any queue. %s sends one.", m.keys.Send), w)...)
	}
	active := m.Focused && !m.lists.OnItems && m.Form == nil && m.poll == nil
	from, to := m.lists.Groups.Window(len(queues), m.queueRows())
	for i := from; i < to; i++ {
		lines = append(lines, t.Row(st, m.queueCells(queues[i], i == m.lists.Groups.Cur), i == m.lists.Groups.Cur, active))
	}
	box := widgets.PaneBox(st, active)
	return widgets.Pane(box, strings.Join(lines, "\n"), m.leftWidth(), m.Height)
}

// queueDepth is a queue's ready and delayed counts and the age of its
// oldest ready message, at a given now.
type queueDepth struct {
	ready, delayed int
	oldestMs       int64
}

// depthAt moves the loaded counts to now: messages of the sample that
// came due since the load count as ready (a quiet store is not re-read,
// yet delayed messages keep coming due). The sample is the first messages
// in due order, so the oldest ready message is its first.
func (m Model) depthAt(q coord.QueueReport, now int64) queueDepth {
	d := queueDepth{ready: q.Ready, delayed: q.Delayed}
	for _, msg := range q.Messages {
		if msg.DueAt > m.loadedAt && msg.DueAt <= now {
			d.ready, d.delayed = d.ready+1, d.delayed-1
		}
	}
	if d.ready > 0 && len(q.Messages) > 0 {
		d.oldestMs = now - q.Messages[0].DueAt
	}
	return d
}

// queueCells are one queue's cells at now.
func (m Model) queueCells(q coord.QueueReport, selected bool) []widgets.Line {
	st := m.Styles
	d := m.depthAt(q, m.Deps.Now())
	oldest, style := "–", st.Muted
	if d.ready > 0 {
		oldest = widgets.Human(widgets.MsDur(d.oldestMs))
		if widgets.MsDur(d.oldestMs) > coord.PollerGrace {
			style = st.Warn
		}
	}
	return []widgets.Line{
		{{Text: widgets.Gutter(selected), Style: st.Accent}},
		{{Text: widgets.Sanitize(q.Name), Style: st.Text}},
		{{Text: fmt.Sprint(d.ready), Style: st.Text}},
		{{Text: fmt.Sprint(d.delayed), Style: st.Muted}},
		{{Text: oldest, Style: style}},
	}
}

// queueView renders the right pane.
func (m Model) queueView() string {
	st := m.Styles
	w := m.rightInner()
	q, ok := m.queue()
	if !ok && m.Form == nil {
		return widgets.Pane(st.Pane, st.Muted.Render(views.Hint("Select a queue on the left; %s sends a message to a new one.", m.keys.Send)), m.rightWidth(), m.Height)
	}
	lines := []string{widgets.Spread(st.PaneTitle.Render(widgets.Sanitize(strings.ToUpper(q.Name)))+"  "+m.queueSummary(q), m.position(len(m.shownMessages(q))), w)}
	if m.folds() < coordkit.FoldChart {
		lines = append(lines, widgets.FitTo(m.histogram(q, w), m.histRows())...)
	}
	lines = append(lines, m.trendLine(q, w))
	var body []string
	switch {
	case m.poll != nil:
		body = m.pollLines(w)
	case m.peek != nil:
		body = m.peekLines(w)
	default:
		body = append(m.messageLines(q, w), st.Muted.Render(strings.Repeat("─", w)))
		body = append(body, widgets.FitTo(m.lowerLines(q, w), m.detailRows())...)
	}
	lines = append(lines, widgets.FitTo(body, m.bodyRows())...)
	lines = append(lines, m.folds().Footer(st, m.hint(w), queuesNote, w)...)
	box := widgets.PaneBox(st, m.Focused && (m.lists.OnItems || m.Form != nil || m.poll != nil || m.peek != nil))
	return widgets.Pane(box, strings.Join(lines, "\n"), m.rightWidth(), m.Height)
}

// queueSummary is the depth of a queue and its oldest ready message at
// now.
func (m Model) queueSummary(q coord.QueueReport) string {
	st := m.Styles
	d := m.depthAt(q, m.Deps.Now())
	out := st.Muted.Render(fmt.Sprintf("%d ready · %d delayed", d.ready, d.delayed))
	if d.ready > 0 {
		out += st.Muted.Render(" · oldest ready ") + st.Text.Render(widgets.Human(widgets.MsDur(d.oldestMs)))
	}
	if q.Final > 0 {
		out += st.Warn.Render(fmt.Sprintf(" · %d final", q.Final))
	}
	if q.Malformed > 0 {
		out += st.Warn.Render(fmt.Sprintf(" · %d malformed", q.Malformed))
	}
	return out
}

// position is "3/7" for the message list, after how many messages are
// marked and, when some of them are not in this list (another queue's,
// or past the messages listed), how many.
func (m Model) position(n int) string {
	out := coordkit.Position(m.Styles, m.marks, m.lists.Items.Cur, n)
	if m.marks.Len() == 0 {
		return out
	}
	q, _ := m.queue()
	here := 0
	for _, msg := range m.shownMessages(q) {
		if m.marks.Has(codec.Format(msg.Key)) {
			here++
		}
	}
	if away := m.marks.Len() - here; away > 0 {
		return m.Styles.Accent.Render(fmt.Sprintf("%s (%d not shown)", m.marks.Indicator(), away)) + strings.TrimPrefix(out, m.Styles.Accent.Render(m.marks.Indicator()))
	}
	return out
}

// histogram draws one bar per stored attempts count; counts whose next
// delivery is the last are drawn as warnings.
func (m Model) histogram(q coord.QueueReport, w int) []string {
	st := m.Styles
	if len(q.Attempts) == 0 {
		return []string{st.Muted.Render("attempts: no messages")}
	}
	most := 0
	for _, a := range q.Attempts {
		most = max(most, a.Count)
	}
	var out []string
	for i, a := range q.Attempts {
		if i == m.histRows()-1 && len(q.Attempts) > m.histRows() {
			out = append(out, st.Muted.Render(fmt.Sprintf("… %d more attempt counts", len(q.Attempts)-i)))
			break
		}
		label := "        "
		if i == 0 {
			label = "attempts"
		}
		style, note := st.OK, ""
		if a.Attempts+1 >= coord.DefaultMaxAttempts {
			style, note = st.Warn, "  next delivery is the last"
		}
		bar := widgets.ShareBar(int64(a.Count), int64(most), min(30, w/3), style, st.Muted)
		out = append(out, st.Label.Render(label)+st.Text.Render(fmt.Sprintf(" %2d ", a.Attempts))+bar.Render(false)+st.Text.Render(fmt.Sprintf(" %d", a.Count))+st.Warn.Render(note))
	}
	return out
}

// messageLines renders the header and the visible messages.
func (m Model) messageLines(q coord.QueueReport, w int) []string {
	st := m.Styles
	now := m.Deps.Now()
	msgs := m.shownMessages(q)
	from, to := m.lists.Items.Window(len(msgs), m.msgRows())
	cells := make([][]widgets.Line, 0, to-from)
	for i := from; i < to; i++ {
		cells = append(cells, m.messageCells(msgs[i], now, i == m.lists.Items.Cur))
	}
	t := widgets.FitTable(messageColumns, w, cells)
	out := []string{t.Header(st)}
	active := m.Focused && m.lists.OnItems && m.Form == nil
	for i := from; i < to; i++ {
		out = append(out, t.Row(st, cells[i-from], i == m.lists.Items.Cur, active))
	}
	if more := q.Ready + q.Delayed - len(q.Messages); to == len(msgs) && more > 0 && m.filter.Text() == "" {
		out = append(out, st.Muted.Render(fmt.Sprintf("… and %d more (the first %d are listed)", more, coord.MaxQueueSample)))
	}
	return widgets.FitTo(out, m.msgRows()+1)
}

// messageCells are one message's cells at now.
func (m Model) messageCells(msg coord.QueueMessage, now int64, selected bool) []widgets.Line {
	st := m.Styles
	mark, flags, fstyle := " ", "", st.Muted
	switch {
	case msg.Attempts+1 >= coord.DefaultMaxAttempts:
		mark, flags, fstyle = "⚠", "FINAL", st.Warn
	case msg.Attempts > 0:
		flags = "redeliv"
	}
	due, dstyle := widgets.RelativeTo(msg.DueAt, now, "ready"), st.Muted
	switch {
	case msg.DueAt == now:
		due, dstyle = "ready", st.Text
	case msg.DueAt < now:
		dstyle = st.Text
	}
	return []widgets.Line{
		{{Text: widgets.Gutter(selected), Style: fstyle}, {Text: m.marks.Glyph(codec.Format(msg.Key)), Style: st.Accent}, {Text: mark, Style: fstyle}},
		{{Text: widgets.Sanitize(msg.ID), Style: st.Text}},
		{{Text: due, Style: dstyle}},
		{{Text: fmt.Sprint(msg.Attempts), Style: st.Text}},
		{{Text: flags, Style: fstyle}},
		{{Text: bodyPreview(msg.Body), Style: st.Muted}},
	}
}

// previewCap bounds the bytes of a body a preview reads.
const previewCap = 4 << 10

// bodyPreview is a body on one line, compact and safe to print.
func bodyPreview(body []byte) string {
	if len(body) > previewCap {
		// One line shows: do not normalise or escape megabytes per frame.
		cut := previewCap
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		return widgets.Sanitize(string(body[:cut])) + "…"
	}
	if v, err := codec.NormalizeJSON(body); err == nil {
		body = v
	}
	return widgets.Sanitize(string(body))
}
