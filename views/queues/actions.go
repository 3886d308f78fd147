package queues

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/views"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// closeReportKey is esc on the lists: it closes the poll's report.
func (m *Model) closeReportKey() tea.Cmd {
	m.closeReport()
	return nil
}

// showInBrowse shows the selected message's raw key in Browse.
func (m *Model) showInBrowse() tea.Cmd {
	row, ok := m.Selected()
	return coordkit.ShowInBrowse(row, ok, "a message")
}

// peekKey is enter (or v): on the queues it moves to the queue's
// messages; on a message it opens its full body.
func (m *Model) peekKey() tea.Cmd {
	if !m.lists.OnItems {
		m.lists.OnItems = len(m.msgIDs()) > 0
		return nil
	}
	if it, ok := m.message(); ok {
		m.peek = &peekState{msg: it, cache: &widgets.ValueCache{}}
		m.keys.Close.SetEnabled(true)
	}
	return nil
}

// closeReport drops the last poll's report.
func (m *Model) closeReport() {
	m.report = nil
	m.keys.Close.SetEnabled(m.peek != nil)
}

// handlePeek scrolls the full body; esc (or enter) closes it.
func (m Model) handlePeek(msg tea.KeyMsg) Model {
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

// handleForm handles keys while the send form is open; a valid
// submission sends.
func (m Model) handleForm(msg tea.KeyMsg) (Model, tea.Cmd) {
	vals, ok, cmd := m.FormKey(msg)
	if !ok {
		return m, cmd
	}
	body, _ := codec.NormalizeJSON([]byte(vals[1]))
	d, _ := parseDelay(vals[2])
	return m, sendMessage(m.Store, m.Deps.Session, strings.TrimSpace(vals[0]), body, d)
}

// startSend opens the send form on the selected queue.
func (m *Model) startSend() tea.Cmd {
	q, _ := m.queue()
	now := m.Deps.Now
	m.Form = widgets.NewForm("SEND A MESSAGE",
		`Writes {"body": BODY, "attempts": 0} at ["dwk_queue_due", queue, now + delay, new uuid], as a producer's send.`, m.Styles).
		Add("queue", q.Name, "invoices", widgets.NonEmpty("a queue name")).
		Add("body", "{}", `{"invoice": 1001}`, checkBody).
		Add("delay", "", "none, or 30s, 5m", func(s string) (string, error) {
			d, err := parseDelay(s)
			if err != nil {
				return "", err
			}
			if d == 0 {
				return "due at once", nil
			}
			return "due " + usertext.FormatTime(now()+d.Milliseconds()) + " (in " + widgets.Human(d) + ")", nil
		})
	m.Form.FocusOn(1)
	m.Form.SetWidth(m.rightInner())
	return nil
}

// checkBody validates a message body as JSON, live.
func checkBody(s string) (string, error) {
	v, err := codec.NormalizeJSON([]byte(s))
	if err != nil {
		return "", fmt.Errorf("not JSON: %w", err)
	}
	return fmt.Sprintf("valid JSON · %d bytes", len(v)), nil
}

// purgeOff says why d cannot purge: no queue is selected.
func (m Model) purgeOff() string {
	if _, ok := m.queue(); !ok {
		return "select a queue to purge it"
	}
	return ""
}

// askPurge asks to delete every message of the selected queue.
func (m *Model) askPurge() tea.Cmd {
	q, _ := m.queue()
	n := q.Ready + q.Delayed + q.Malformed
	return views.Confirm(fmt.Sprintf("Purge %s: delete its %d message(s)?", q.Name, n), "purge", purgeQueue(m.Store, m.Deps.Session, q.Name),
		fmt.Sprintf("Deletes every message of %s, due or not: %d ready, %d delayed, %d malformed (and any sent before the purge runs), in short commits.",
			widgets.Sanitize(q.Name), q.Ready, q.Delayed, q.Malformed),
		"Nothing is kept: purged messages leave no trace. Messages a consumer holds right now are not in the store and are not touched.")
}
