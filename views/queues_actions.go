package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
)

// handleLists handles keys while the queue list or the message list has
// them.
func (m Queues) handleLists(msg tea.KeyMsg) (Queues, tea.Cmd) {
	k := m.keys
	if m.onMessages {
		if m.msgList.handle(msg, k.NavKeys, m.msgIDs(), m.msgRows()) {
			m.closeReport()
			return m, nil
		}
	} else if m.queueList.handle(msg, k.NavKeys, m.queueNames(), m.queueRows()) {
		m.closeReport()
		m.msgList = listCursor{}
		m.msgList.follow(m.msgIDs(), m.msgRows())
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Close):
		m.closeReport()
	case key.Matches(msg, k.Queues):
		m.onMessages = false
	case key.Matches(msg, k.Messages), key.Matches(msg, k.Peek) && !m.onMessages:
		m.onMessages = len(m.msgIDs()) > 0
	case key.Matches(msg, k.Reload):
		return m.Refresh()
	case key.Matches(msg, k.Peek):
		if it, ok := m.message(); ok {
			m.peek = &peekState{msg: it}
			m.keys.Close.SetEnabled(true)
		}
	case key.Matches(msg, k.Send):
		m.startSend()
	case key.Matches(msg, k.Poll):
		return m.startPoll()
	case key.Matches(msg, k.Purge):
		return m, m.askPurge()
	default:
		d := DefaultQueuesKeys()
		return m, refuseReadOnly(m.readOnly, msg, d.Send, d.Poll, d.Purge)
	}
	return m, nil
}

// closeReport drops the last poll's report.
func (m *Queues) closeReport() {
	m.report = nil
	m.keys.Close.SetEnabled(m.peek != nil)
}

// handlePeek scrolls the full body; esc (or enter) closes it.
func (m Queues) handlePeek(msg tea.KeyMsg) Queues {
	p := *m.peek
	switch {
	case key.Matches(msg, m.keys.Close), key.Matches(msg, m.keys.Peek):
		m.peek = nil
		m.keys.Close.SetEnabled(m.report != nil)
		return m
	case key.Matches(msg, m.keys.Up):
		p.off = max(p.off-1, 0)
	case key.Matches(msg, m.keys.Down):
		p.off++
	case key.Matches(msg, m.keys.PageUp):
		p.off = max(p.off-m.bodyRows(), 0)
	case key.Matches(msg, m.keys.PageDown):
		p.off += m.bodyRows()
	}
	m.peek = &p
	return m
}

// handleForm handles keys while the send form is open.
func (m Queues) handleForm(msg tea.KeyMsg) (Queues, tea.Cmd) {
	act, cmd := m.form.handle(msg)
	switch act {
	case formCancel:
		m.form = nil
	case formSubmit:
		return m.submitSend()
	}
	return m, cmd
}

// startSend opens the send form on the selected queue.
func (m *Queues) startSend() {
	q, _ := m.queue()
	now := m.deps.Now
	m.form = newMiniForm("SEND A MESSAGE",
		`Writes {"body": BODY, "attempts": 0} at ["dwk_queue_due", queue, now + delay, new uuid], as a producer's send.`, m.styles).
		add("queue", q.Name, "invoices", nonEmpty("a queue name")).
		add("body", "{}", `{"invoice": 1001}`, checkBody).
		add("delay", "", "none, or 30s, 5m", func(s string) (string, error) {
			d, err := parseDelay(s)
			if err != nil {
				return "", err
			}
			if d == 0 {
				return "due at once", nil
			}
			return "due " + rfcTime(now()+d.Milliseconds()) + " (in " + human(d) + ")", nil
		})
	m.form.focusOn(1)
	m.form.setWidth(m.rightInner())
}

// checkBody validates a message body as JSON, live.
func checkBody(s string) (string, error) {
	v, err := codec.NormalizeJSON([]byte(s))
	if err != nil {
		return "", fmt.Errorf("not JSON: %w", err)
	}
	return fmt.Sprintf("valid JSON · %d bytes", len(v)), nil
}

// submitSend validates the form and sends.
func (m Queues) submitSend() (Queues, tea.Cmd) {
	f := m.form
	vals, err := f.values()
	if err != nil {
		f.err = err.Error()
		return m, nil
	}
	body, _ := codec.NormalizeJSON([]byte(vals[1]))
	d, _ := parseDelay(vals[2])
	f.busy, f.err = true, ""
	m.acting = true
	return m, sendMessage(m.store, m.deps.Session, strings.TrimSpace(vals[0]), body, d)
}

// askPurge asks to delete every message of the selected queue.
func (m Queues) askPurge() tea.Cmd {
	q, ok := m.queue()
	if !ok {
		return Flash(FlashInfo, "select a queue to purge it")
	}
	n := q.Ready + q.Delayed + q.Malformed
	return Confirm(fmt.Sprintf("Purge %s: delete its %d message(s)?", q.Name, n), "purge", purgeQueue(m.store, m.deps.Session, q.Name),
		fmt.Sprintf("Deletes every message of %s, due or not: %d ready, %d delayed, %d malformed (and any sent before the purge runs), in short commits.",
			sanitize(q.Name), q.Ready, q.Delayed, q.Malformed),
		"Nothing is kept: purged messages leave no trace. Messages a consumer holds right now are not in the store and are not touched.")
}
