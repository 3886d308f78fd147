package queues

import (
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/store/coord"
	"kvdeck/views/coordkit"
)

// The `/` filter: a queue shows when its name matches or one of its
// listed messages does; the messages of a queue whose name matches all
// show, else only those that match (id or body).

// shownQueues are the queues the filter lets through.
func (m Model) shownQueues() []coord.QueueReport {
	return coordkit.Shown(m.filter, m.queues, func(q coord.QueueReport) int { return len(m.shownMessages(q)) })
}

// shownMessages are the listed messages of q the filter lets through.
func (m Model) shownMessages(q coord.QueueReport) []coord.QueueMessage {
	if m.filter.Text() == "" || m.filter.Match(q.Name) {
		return q.Messages
	}
	var out []coord.QueueMessage
	for _, msg := range q.Messages {
		if m.filter.Match(msg.ID + " " + string(msg.Body)) {
			out = append(out, msg)
		}
	}
	return out
}

// handleFilter hands msg to the filter.
func (m Model) handleFilter(msg tea.KeyMsg) (Model, tea.Cmd) {
	_, cmd := m.lists.Filter(&m.filter, &m.keys.FilterKeys, msg, m.sides())
	return m, cmd
}
