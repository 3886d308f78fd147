package queues

import (
	"fmt"

	"kvdeck/internal/usertext"
	"kvdeck/store/coord"
	"kvdeck/views"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// lowerLines is the area under the message list: the send form, the last
// poll's report, or the selected message.
func (m Model) lowerLines(q coord.QueueReport, w int) []string {
	st := m.Styles
	switch {
	case m.Form != nil:
		return m.Form.View(w)
	case m.report != nil && m.report.queue == q.Name:
		return m.reportLines(w)
	}
	msg, ok := m.message()
	if !ok || !m.lists.OnItems {
		return widgets.ProseLines(views.Hint("%s moves to the queue's messages; the selected one shows here, %s shows its whole body.", m.keys.Messages, m.keys.Peek), st.Muted, w)
	}
	now := m.Deps.Now()
	out := widgets.FieldLine(st, "key", widgets.KeySpans(st, msg.Key), w)
	out = append(out, widgets.FieldLine(st, "stamp", widgets.Line{{Text: msg.Versionstamp, Style: st.Text}}, w)...)
	out = append(out, widgets.FieldLine(st, "due", widgets.Line{{Text: usertext.FormatTime(msg.DueAt), Style: st.Text}, {Text: " · " + widgets.RelativeTo(msg.DueAt, now, "ready for"), Style: st.Muted}}, w)...)
	next := fmt.Sprintf("%d stored: its next delivery is attempt %d of %d", msg.Attempts, msg.Attempts+1, coord.DefaultMaxAttempts)
	nstyle := st.Text
	if msg.Attempts+1 >= coord.DefaultMaxAttempts {
		next, nstyle = next+", dropped unless acked", st.Warn
	}
	out = append(out, widgets.FieldLine(st, "attempt", widgets.Line{{Text: next, Style: nstyle}}, w)...)
	out = append(out, widgets.FieldLine(st, "body", widgets.Line{{Text: bodyPreview(msg.Body), Style: st.Text}}, w)...)
	return append(out, coordkit.FindingLines(st, m.finds.Of(msg.Key), w, false)...)
}

// reportLines reports the last poll, one line per delivered message.
func (m Model) reportLines(w int) []string {
	st := m.Styles
	r := m.report
	out := coordkit.TitleAndSummary(st, "POLLED AT "+usertext.FormatTime(r.at), deliverySummary(r.deliveries, r.asked), w)
	room := m.detailRows() - 2
	for i, d := range r.deliveries {
		if i == room-1 && len(r.deliveries) > room {
			out = append(out, st.Muted.Render(fmt.Sprintf("… and %d more", len(r.deliveries)-i)))
			break
		}
		style, text := st.OK, fmt.Sprintf("%-8s %-14s attempt %d", d.Outcome, widgets.ClipText(d.ID, 14), d.Attempts)
		switch d.Outcome {
		case coord.OutcomeRequeued:
			style, text = st.Text, text+" → due again "+usertext.FormatTime(d.NextDueAt)
		case coord.OutcomeDropped:
			style, text = st.Warn, text+": its last attempt, dropped without trace"
		case coord.OutcomeAcked:
		}
		out = append(out, style.Render(widgets.FitWidth(text, w)))
	}
	if r.err != nil {
		out = append(out, widgets.ProseLines("✗ "+r.err.Error(), st.Error, w)...)
	}
	return append(out, st.Muted.Render(views.Hint("(%s or moving the cursor closes this report)", m.keys.Close)))
}

// peekLines is the whole body of the peeked message, scrolled.
func (m Model) peekLines(w int) []string {
	st := m.Styles
	p := m.peek
	body, note, valid := p.cache.Lines(st, 0, p.msg.Body, w, true)
	if note != "" {
		body = append(widgets.ProseLines("✂ "+note, st.Warn, w), body...)
	}
	rows := m.bodyRows() - 2
	off := widgets.ClampOffset(p.off, rows, len(body))
	head := st.PaneTitle.Render("BODY OF "+widgets.Sanitize(p.msg.ID)) + st.Muted.Render(fmt.Sprintf(" · %d bytes · lines %d-%d of %d", len(p.msg.Body), off+1, min(off+rows, len(body)), len(body)))
	if !valid {
		head += st.Error.Render(" · not valid JSON: shown raw")
	}
	return append([]string{head, ""}, body[off:min(off+rows, len(body))]...)
}

// hint is the line of actions under the body, or why there are none.
func (m Model) hint(w int) string {
	st := m.Styles
	switch {
	case m.Form != nil, m.poll != nil:
		return ""
	case m.peek != nil:
		return st.Muted.Render(widgets.FitWidth("↑/↓ scroll · esc closes", w))
	case m.markAll != nil:
		return st.Accent.Render(widgets.FitWidth(m.markingLine(), w))
	}
	k := m.keys
	return m.Hint(views.Hint("%s send · %s peek · %s take a batch · %s purge · %s/%s queues / messages", k.Send, k.Peek, k.Poll, k.Purge, k.Queues, k.Messages), w)
}

// pollLines is the decision panel of a claimed batch.
func (m Model) pollLines(w int) []string {
	st := m.Styles
	p := m.poll
	switch p.phase {
	case pollClaiming:
		return []string{st.Muted.Render("claiming the due messages of " + widgets.Sanitize(p.queue) + "…")}
	case pollApplyingPhase:
		return []string{st.Muted.Render("applying the decisions…")}
	case pollDeciding:
	}
	out := []string{st.PaneTitle.Render(fmt.Sprintf("CLAIMED %d MESSAGE(S) OF %s", len(p.items), widgets.Sanitize(p.queue))) +
		st.Warn.Render(" · out of the store until you apply")}
	if raced := coordkit.Raced(len(p.items), p.asked, "message(s)", "consumer"); raced != "" {
		out = append(out, widgets.ProseLines(raced+".", st.Warn, w)...)
	}
	t := widgets.NewTable(pollColumns, w)
	out = append(out, t.Header(st))
	for i, it := range p.items {
		out = append(out, t.Row(st, m.pollCells(it, i == p.list.Cur), i == p.list.Cur, true))
	}
	if p.editing {
		out = append(out, "", p.delayIn.View()+st.Muted.Render("  (a Go duration from the poll's now; enter sets it)"))
	}
	out = append(out, "")
	pk := m.pollKeys
	out = append(out, widgets.ProseLines(views.Hint("%s ack (consumed) · %s retry after a delay · %s back off: nack (redelivered after the backoff) · %s applies; undecided messages count as nack. ", pk.Ack, pk.Retry, pk.Nack, pk.Apply)+
		"Retry delays count from the poll's now ("+usertext.FormatTime(p.now)+"). A message on its last attempt that is not acked is dropped without trace. "+
		"Quitting kvdeck before applying loses the batch, like a consumer that crashed.", st.Muted, w)...)
	return out
}

var pollColumns = []widgets.Column{
	{Title: "", Width: 1}, {Title: "DECISION", Width: 15}, {Title: "ID", Width: 14, Drop: 1}, {Title: "ATTEMPT", Width: 7},
	{Title: "OUTCOME", Width: 18}, {Title: "BODY", Width: 0},
}

// pollCells are one claimed message's cells: its decision and what
// applying it will do.
func (m Model) pollCells(it pollItem, selected bool) []widgets.Line {
	st := m.Styles
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
		decision, dstyle = "retry after "+widgets.Human(it.delay), st.Accent
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
		outcome, ostyle = "requeued, due +"+widgets.Human(wait), st.Text
	}
	return []widgets.Line{
		{{Text: widgets.Gutter(selected), Style: st.Accent}},
		{{Text: decision, Style: dstyle}},
		{{Text: widgets.Sanitize(it.id), Style: st.Text}},
		{{Text: fmt.Sprintf("%d/%d", it.attempts, coord.DefaultMaxAttempts), Style: st.Text}},
		{{Text: outcome, Style: ostyle}},
		{{Text: bodyPreview(it.body), Style: st.Muted}},
	}
}
