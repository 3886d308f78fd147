package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"kvdeck/codec"
	"kvdeck/store/coord"
)

// queuesNote is said plainly under the messages: what no look can show.
const queuesNote = "A message dropped at its last attempt, or lost in a crash, leaves no trace."

// Layout: queues on the left; on the right the queue's title and
// attempts histogram, then its messages and the selected one (or the
// peek, the poll panel, the send form), then the hint and the note.
func (m Queues) leftWidth() int  { return min(max(m.width*3/10, 30), 38) }
func (m Queues) rightWidth() int { return m.width - m.leftWidth() }
func (m Queues) rightInner() int { return m.rightWidth() - m.styles.Pane.GetHorizontalFrameSize() }
func (m Queues) innerHeight() int {
	return m.height - m.styles.Pane.GetVerticalFrameSize()
}
func (m Queues) queueRows() int { return max(m.innerHeight()-2, 1) }

// histRows is how many histogram bars the selected queue shows (1-4).
func (m Queues) histRows() int {
	q, _ := m.queue()
	return min(max(len(q.Attempts), 1), 4)
}

// bodyRows is the room between the histogram and the hint and note.
func (m Queues) bodyRows() int { return max(m.innerHeight()-1-m.histRows()-2, 3) }

// detailRows is the room of the selected message (or the form).
func (m Queues) detailRows() int {
	n := min(9, max(m.bodyRows()/3, 3))
	if m.form != nil {
		n = max(n, len(m.form.view(m.rightInner())))
	}
	return n
}

// msgRows is how many messages the list shows: the body less the table
// header, the rule and the detail.
func (m Queues) msgRows() int { return max(m.bodyRows()-2-m.detailRows(), 1) }

var queueColumns = []tableColumn{
	{title: "", width: 1}, {title: "QUEUE", width: 0}, {title: "READY", width: 5},
	{title: "DELAY", width: 5, drop: 1}, {title: "OLDEST", width: 6},
}

var messageColumns = []tableColumn{
	{title: "", width: 2}, {title: "ID", width: 18}, {title: "DUE", width: 11}, {title: "ATT", width: 3, drop: 2},
	{title: "FLAGS", width: 7, drop: 1}, {title: "BODY", width: 0},
}

// View renders the queues and the selected queue.
func (m Queues) View() string {
	if m.width < 50 || m.height < 14 {
		return "window too small"
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, m.queuesView(), m.queueView())
}

// queuesView renders the left pane.
func (m Queues) queuesView() string {
	st := m.styles
	w := m.leftWidth() - st.Pane.GetHorizontalFrameSize()
	t := newColumnTable(queueColumns, w)
	lines := []string{spread(st.PaneTitle.Render("QUEUES"), st.Muted.Render(fmt.Sprint(len(m.queues))), w), t.header(st)}
	switch {
	case m.err != nil:
		lines = append(lines, proseLines("✗ "+m.err.Error(), st.Error, w)...)
	case !m.loaded:
		lines = append(lines, st.Muted.Render("loading…"))
	case len(m.queues) == 0:
		lines = append(lines, proseLines("No messages in any queue. n sends one.", st.Muted, w)...)
	}
	active := m.focused && !m.onMessages && m.form == nil && m.poll == nil
	from, to := m.queueList.window(len(m.queues), m.queueRows())
	for i := from; i < to; i++ {
		lines = append(lines, t.row(st, m.queueCells(m.queues[i], i == m.queueList.cur), i == m.queueList.cur, active))
	}
	box := st.Pane
	if active {
		box = st.PaneFocused
	}
	return Pane(box, strings.Join(lines, "\n"), m.leftWidth(), m.height)
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
func (m Queues) depthAt(q coord.QueueReport, now int64) queueDepth {
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
func (m Queues) queueCells(q coord.QueueReport, selected bool) []line {
	st := m.styles
	d := m.depthAt(q, m.deps.Now())
	oldest, style := "–", st.Muted
	if d.ready > 0 {
		oldest = human(msDur(d.oldestMs))
		if msDur(d.oldestMs) > coord.PollerGrace {
			style = st.Warn
		}
	}
	return []line{
		{{gutter(selected), st.Accent}},
		{{sanitize(q.Name), st.Text}},
		{{fmt.Sprint(d.ready), st.Text}},
		{{fmt.Sprint(d.delayed), st.Muted}},
		{{oldest, style}},
	}
}

// queueView renders the right pane.
func (m Queues) queueView() string {
	st := m.styles
	w := m.rightInner()
	q, ok := m.queue()
	if !ok && m.form == nil {
		return Pane(st.Pane, st.Muted.Render("Select a queue on the left; n sends a message to a new one."), m.rightWidth(), m.height)
	}
	lines := []string{spread(st.PaneTitle.Render(strings.ToUpper(sanitize(q.Name)))+"  "+m.queueSummary(q), m.position(len(q.Messages)), w)}
	lines = append(lines, fitTo(m.histogram(q, w), m.histRows())...)
	var body []string
	switch {
	case m.poll != nil:
		body = m.pollLines(w)
	case m.peek != nil:
		body = m.peekLines(w)
	default:
		body = append(m.messageLines(q, w), st.Muted.Render(strings.Repeat("─", w)))
		body = append(body, fitTo(m.lowerLines(q, w), m.detailRows())...)
	}
	lines = append(lines, fitTo(body, m.bodyRows())...)
	lines = append(lines, m.hint(w), st.Muted.Render(FitWidth(queuesNote, w)))
	box := st.Pane
	if m.focused && (m.onMessages || m.form != nil || m.poll != nil || m.peek != nil) {
		box = st.PaneFocused
	}
	return Pane(box, strings.Join(lines, "\n"), m.rightWidth(), m.height)
}

// queueSummary is the depth of a queue and its oldest ready message at
// now.
func (m Queues) queueSummary(q coord.QueueReport) string {
	st := m.styles
	d := m.depthAt(q, m.deps.Now())
	out := st.Muted.Render(fmt.Sprintf("%d ready · %d delayed", d.ready, d.delayed))
	if d.ready > 0 {
		out += st.Muted.Render(" · oldest ready ") + st.Text.Render(human(msDur(d.oldestMs)))
	}
	if q.Final > 0 {
		out += st.Warn.Render(fmt.Sprintf(" · %d final", q.Final))
	}
	if q.Malformed > 0 {
		out += st.Warn.Render(fmt.Sprintf(" · %d malformed", q.Malformed))
	}
	return out
}

// position is "3/7" for the message list.
func (m Queues) position(n int) string {
	if n == 0 {
		return ""
	}
	return m.styles.Muted.Render(fmt.Sprintf("%d/%d", m.msgList.cur+1, n))
}

// histogram draws one bar per stored attempts count; counts whose next
// delivery is the last are drawn as warnings.
func (m Queues) histogram(q coord.QueueReport, w int) []string {
	st := m.styles
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
		bar := shareBar(int64(a.Count), int64(most), min(30, w/3), style, st.Muted)
		out = append(out, st.Label.Render(label)+st.Text.Render(fmt.Sprintf(" %2d ", a.Attempts))+bar.render(false)+st.Text.Render(fmt.Sprintf(" %d", a.Count))+st.Warn.Render(note))
	}
	return out
}

// messageLines renders the header and the visible messages.
func (m Queues) messageLines(q coord.QueueReport, w int) []string {
	st := m.styles
	t := newColumnTable(messageColumns, w)
	out := []string{t.header(st)}
	now := m.deps.Now()
	from, to := m.msgList.window(len(q.Messages), m.msgRows())
	active := m.focused && m.onMessages && m.form == nil
	for i := from; i < to; i++ {
		out = append(out, t.row(st, m.messageCells(q.Messages[i], now, i == m.msgList.cur), i == m.msgList.cur, active))
	}
	if more := q.Ready + q.Delayed - len(q.Messages); to == len(q.Messages) && more > 0 {
		out = append(out, st.Muted.Render(fmt.Sprintf("… and %d more (the first %d are listed)", more, coord.MaxQueueSample)))
	}
	return fitTo(out, m.msgRows()+1)
}

// messageCells are one message's cells at now.
func (m Queues) messageCells(msg coord.QueueMessage, now int64, selected bool) []line {
	st := m.styles
	mark, flags, fstyle := " ", "", st.Muted
	switch {
	case msg.Attempts+1 >= coord.DefaultMaxAttempts:
		mark, flags, fstyle = "⚠", "FINAL", st.Warn
	case msg.Attempts > 0:
		flags = "redeliv"
	}
	due, dstyle := relativeTo(msg.DueAt, now, "ready"), st.Muted
	switch {
	case msg.DueAt == now:
		due, dstyle = "ready", st.Text
	case msg.DueAt < now:
		dstyle = st.Text
	}
	return []line{
		{{gutter(selected) + mark, fstyle}},
		{{sanitize(msg.ID), st.Text}},
		{{due, dstyle}},
		{{fmt.Sprint(msg.Attempts), st.Text}},
		{{flags, fstyle}},
		{{bodyPreview(msg.Body), st.Muted}},
	}
}

// bodyPreview is a body on one line, compact and safe to print.
func bodyPreview(body []byte) string {
	if v, err := codec.NormalizeJSON(body); err == nil {
		body = v
	}
	return sanitize(string(body))
}
