package queues

import (
	"fmt"
	"slices"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Marking messages for a bulk action: space marks the
// selected message and moves down, ctrl+a marks every message shown; when
// the queue holds more than the inspection shows (its first 200), ctrl+a
// again reads every message of the queue in pages (markall.go) and marks
// them; ctrl+a once more clears. ; offers retry now, dead-letter, delete
// and copy keys over the marked ones (the root asks and runs them,
// tui/bulk.go).

// messageMark is the mark of one message: its key, stamp and value.
func messageMark(msg coord.QueueMessage) widgets.Mark {
	return widgets.Mark{ID: codec.Format(msg.Key), Key: msg.Key, Stamp: msg.Versionstamp, Value: messageValue(msg)}
}

// messageValue is the stored value of a message as the inspection parsed
// it (the reference's key order).
func messageValue(msg coord.QueueMessage) []byte {
	return []byte(fmt.Sprintf(`{"body":%s,"attempts":%d}`, msg.Body, msg.Attempts))
}

// handleMark handles space, ctrl+a and ; on the lists.
func (m Model) handleMark(msg tea.KeyMsg) (Model, tea.Cmd) {
	q, _ := m.queue()
	switch {
	case key.Matches(msg, m.keys.Bulk):
		return m, m.bulk()
	case !m.lists.OnItems:
		return m, views.Flash(views.FlashInfo, "%s", views.Hint("select a queue's messages (%s) to mark them", m.keys.Messages))
	case key.Matches(msg, m.keys.MarkAll):
		return m.markAllKey(q)
	default:
		if it, ok := m.message(); ok {
			m.allOf = ""
			m.marks.Toggle(messageMark(it))
			m.lists.Nav(tea.KeyMsg{Type: tea.KeyDown}, m.keys.NavKeys, m.sides())
		}
	}
	return m, nil
}

// pruneMarks drops the marks of messages a load shows gone: their queue
// is gone, or listed whole without them (delivered, dropped or purged).
// A bulk action would skip them, and "N marked" counts what is there.
// A queue longer than the messages listed keeps its marks: they may be
// further on (ctrl+a marks every message of a queue).
func (m *Model) pruneMarks() {
	if m.marks.Len() == 0 {
		return
	}
	byQueue := make(map[string]coord.QueueReport, len(m.queues))
	for _, q := range m.queues {
		byQueue[q.Name] = q
	}
	for _, mk := range m.marks.List() {
		if len(mk.Key) < 2 {
			continue
		}
		q, ok := byQueue[mk.Key[1].StringValue()]
		if ok && (len(q.Messages) >= coord.MaxQueueSample || slices.ContainsFunc(q.Messages, func(msg coord.QueueMessage) bool {
			return codec.Format(msg.Key) == mk.ID
		})) {
			continue
		}
		m.marks.Toggle(mk)
	}
}

// bulk offers the bulk actions over the marked messages.
func (m Model) bulk() tea.Cmd {
	if m.markAll != nil {
		return views.Flash(views.FlashInfo, "still marking the queue's messages: wait, or esc stops")
	}
	if m.marks.Len() == 0 {
		return views.Flash(views.FlashInfo, "%s", m.keys.MarkKeys.NoneMarked("message"))
	}
	now := m.Deps.Now()
	var retry, dead, del []store.BulkUnit
	for _, mk := range m.marks.List() {
		r, err := coord.QueueRetryUnit(mk.Key, mk.Stamp, mk.Value, now)
		if err != nil {
			return views.Flash(views.FlashError, "%s: %v", widgets.Sanitize(codec.Format(mk.Key)), err)
		}
		d, _ := coord.QueueDeadLetterUnit(mk.Key, mk.Stamp, mk.Value, now) // parsed just above
		retry, dead = append(retry, r), append(dead, d)
		del = append(del, store.DeleteUnit(mk.Key, mk.Stamp))
	}
	return views.Bulk(m.marks.Count("message"), m.marks.Keys(),
		views.BulkAction{Key: "r", Name: "retry now", Units: retry, Says: "Each message is written again due now: same id, body and attempts."},
		views.BulkAction{Key: "x", Name: "dead-letter", Units: dead, Says: `Each message moves to ["kvdeck_dead_letter", queue, id] (body, attempts, droppedAt).`},
		views.BulkAction{Key: "d", Name: "delete", Units: del, Says: "Each message is deleted: no consumer will see it."},
		views.BulkAction{Key: "y", Name: "copy keys", Copy: true})
}
