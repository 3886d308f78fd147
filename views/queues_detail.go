package views

import (
	"fmt"

	"kvdeck/codec"
	"kvdeck/store/coord"
)

// lowerLines is the area under the message list: the send form, the last
// poll's report, or the selected message.
func (m Queues) lowerLines(q coord.QueueReport, w int) []string {
	st := m.styles
	switch {
	case m.form != nil:
		return m.form.view(w)
	case m.report != nil && m.report.queue == q.Name:
		return m.reportLines(w)
	}
	msg, ok := m.message()
	if !ok || !m.onMessages {
		return proseLines("→ moves to the queue's messages; the selected one shows here, enter shows its whole body.", st.Muted, w)
	}
	now := m.deps.Now()
	out := fieldLine(st, "key", keySpans(st, msg.Key), w)
	out = append(out, fieldLine(st, "stamp", line{{msg.Versionstamp, st.Text}}, w)...)
	out = append(out, fieldLine(st, "due", line{{rfcTime(msg.DueAt), st.Text}, {" · " + relativeTo(msg.DueAt, now, "ready for"), st.Muted}}, w)...)
	next := fmt.Sprintf("%d stored: its next delivery is attempt %d of %d", msg.Attempts, msg.Attempts+1, coord.DefaultMaxAttempts)
	nstyle := st.Text
	if msg.Attempts+1 >= coord.DefaultMaxAttempts {
		next, nstyle = next+", dropped unless acked", st.Warn
	}
	out = append(out, fieldLine(st, "attempt", line{{next, nstyle}}, w)...)
	out = append(out, fieldLine(st, "body", line{{bodyPreview(msg.Body), st.Text}}, w)...)
	return append(out, findingLines(st, m.finds[codec.Format(msg.Key)], w, false)...)
}

// reportLines reports the last poll, one line per delivered message.
func (m Queues) reportLines(w int) []string {
	st := m.styles
	r := m.report
	out := []string{st.PaneTitle.Render("POLLED AT "+rfcTime(r.at)) + st.Muted.Render(" · "+deliverySummary(r.deliveries))}
	room := m.detailRows() - 2
	for i, d := range r.deliveries {
		if i == room-1 && len(r.deliveries) > room {
			out = append(out, st.Muted.Render(fmt.Sprintf("… and %d more", len(r.deliveries)-i)))
			break
		}
		style, text := st.OK, fmt.Sprintf("%-8s %-14s attempt %d", d.Outcome, clipText(d.ID, 14), d.Attempts)
		switch d.Outcome {
		case coord.OutcomeRequeued:
			style, text = st.Text, text+" → due again "+rfcTime(d.NextDueAt)
		case coord.OutcomeDropped:
			style, text = st.Warn, text+": its last attempt, dropped without trace"
		}
		out = append(out, style.Render(FitWidth(text, w)))
	}
	if r.err != nil {
		out = append(out, proseLines("✗ "+r.err.Error(), st.Error, w)...)
	}
	return append(out, st.Muted.Render("(esc or moving the cursor closes this report)"))
}

// peekLines is the whole body of the peeked message, scrolled.
func (m Queues) peekLines(w int) []string {
	st := m.styles
	p := m.peek
	values, valid := jsonLines(st, p.msg.Body)
	var body []string
	for _, l := range values {
		for _, wl := range l.wrap(w, 0) {
			body = append(body, wl.render(false))
		}
	}
	rows := m.bodyRows() - 2
	off := clampOffset(p.off, rows, len(body))
	head := st.PaneTitle.Render("BODY OF "+sanitize(p.msg.ID)) + st.Muted.Render(fmt.Sprintf(" · %d bytes · lines %d-%d of %d", len(p.msg.Body), off+1, min(off+rows, len(body)), len(body)))
	if !valid {
		head += st.Error.Render(" · not valid JSON: shown raw")
	}
	return append([]string{head, ""}, body[off:min(off+rows, len(body))]...)
}

// hint is the line of actions under the body, or why there are none.
func (m Queues) hint(w int) string {
	st := m.styles
	switch {
	case m.form != nil, m.poll != nil:
		return ""
	case m.peek != nil:
		return st.Muted.Render(FitWidth("↑/↓ scroll · esc closes", w))
	case m.readOnly:
		return st.Warn.Render(FitWidth(readOnlyNote, w))
	}
	return st.Muted.Render(FitWidth("n send · enter peek · c poll as a consumer · x purge · ←/→ queues / messages", w))
}

// pollLines is the decision panel of a claimed batch.
func (m Queues) pollLines(w int) []string {
	st := m.styles
	p := m.poll
	switch p.phase {
	case pollClaiming:
		return []string{st.Muted.Render("claiming the due messages of " + sanitize(p.queue) + "…")}
	case pollApplyingPhase:
		return []string{st.Muted.Render("applying the decisions…")}
	}
	out := []string{st.PaneTitle.Render(fmt.Sprintf("CLAIMED %d MESSAGE(S) OF %s", len(p.items), sanitize(p.queue))) +
		st.Warn.Render(" · out of the store until you apply")}
	t := newColumnTable(pollColumns, w)
	out = append(out, t.header(st))
	for i, it := range p.items {
		out = append(out, t.row(st, m.pollCells(it, i == p.list.cur), i == p.list.cur, true))
	}
	if p.editing {
		out = append(out, "", p.delayIn.View()+st.Muted.Render("  (a Go duration from the poll's now; enter sets it)"))
	}
	out = append(out, "")
	out = append(out, proseLines("a ack (consumed) · r retry after a delay · n nack (redelivered after the backoff) · enter applies; undecided messages count as nack. "+
		"Retry delays count from the poll's now ("+rfcTime(p.now)+"). A message on its last attempt that is not acked is dropped without trace. "+
		"Quitting kvdeck before applying loses the batch, like a consumer that crashed.", st.Muted, w)...)
	return out
}

var pollColumns = []tableColumn{
	{title: "", width: 1}, {title: "DECISION", width: 15}, {title: "ID", width: 14, drop: 1}, {title: "ATTEMPT", width: 7},
	{title: "OUTCOME", width: 18}, {title: "BODY", width: 0},
}

// pollCells are one claimed message's cells: its decision and what
// applying it will do.
func (m Queues) pollCells(it pollItem, selected bool) []line {
	st := m.styles
	p := m.poll
	decision, dstyle := "undecided", st.Muted
	switch it.decision {
	case coord.DecisionNone:
		if it.nacked {
			decision, dstyle = "nack", st.Warn
		}
	case coord.DecisionAck:
		decision, dstyle = "ack", st.OK
	case coord.DecisionRetry:
		decision, dstyle = "retry after "+human(it.delay), st.Accent
	}
	outcome, ostyle := "consumed", st.OK
	switch p.outcome(it) {
	case "dropped":
		outcome, ostyle = "DROPPED (last try)", st.Error
	case "requeued":
		wait := coord.Backoff(coord.DefaultBaseRetryDelay, it.attempts)
		if it.decision == coord.DecisionRetry {
			wait = it.delay
		}
		outcome, ostyle = "requeued, due +"+human(wait), st.Text
	}
	return []line{
		{{gutter(selected), st.Accent}},
		{{decision, dstyle}},
		{{sanitize(it.id), st.Text}},
		{{fmt.Sprintf("%d/%d", it.attempts, coord.DefaultMaxAttempts), st.Text}},
		{{outcome, ostyle}},
		{{bodyPreview(it.body), st.Muted}},
	}
}
