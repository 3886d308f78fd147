package views

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/store"
	"kvdeck/store/coord"
)

// queuesLoaded answers loadQueues.
type queuesLoaded struct {
	session, gen int
	now          int64 // the instant the report describes
	queues       []coord.QueueReport
	findings     []coord.Finding
	err          error
}

// loadQueues inspects every queue at now (final attempts judged with the
// reference's default of 5 attempts).
func loadQueues(s *store.Store, session, gen int, now int64) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		defer cancel()
		msg := queuesLoaded{session: session, gen: gen, now: now}
		msg.queues, msg.findings, msg.err = coord.InspectQueues(ctx, s, "", now, 0)
		return msg
	}
}

// queueOp names the action a queueActed answers.
type queueOp int

const (
	queueSend queueOp = iota
	queuePurge
)

// queueActed answers sendMessage and purgeQueue.
type queueActed struct {
	session int
	op      queueOp
	queue   string
	id      string // the sent message's id
	dueAt   int64
	purged  int
	err     error
}

// sendMessage enqueues body on queue after delay, as a producer's send.
func sendMessage(s *store.Store, session int, queue string, body []byte, delay time.Duration) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		defer cancel()
		due := s.Now() + delay.Milliseconds()
		id, err := coord.Send(ctx, s, queue, body, delay)
		return queueActed{session: session, op: queueSend, queue: queue, id: id, dueAt: due, err: err}
	}
}

// purgeQueue deletes every message of queue.
func purgeQueue(s *store.Store, session int, queue string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
		defer cancel()
		n, err := coord.Purge(ctx, s, queue)
		return queueActed{session: session, op: queuePurge, queue: queue, purged: n, err: err}
	}
}

// onLoaded takes a load's answer, keeping both selections by name and id.
func (m Queues) onLoaded(msg queuesLoaded) Queues {
	if !m.loadAnswered(msg.session, msg.gen, msg.err) {
		return m
	}
	m.queues, m.finds, m.loadedAt = msg.queues, findingsByKey(msg.findings), msg.now
	m.queueList.follow(m.queueNames(), m.queueRows())
	m.msgList.follow(m.msgIDs(), m.msgRows())
	return m
}

// onActed reports a send or a purge and reloads.
func (m Queues) onActed(msg queueActed) (Queues, tea.Cmd) {
	if !m.actionAnswered(msg.session) {
		return m, nil
	}
	var flash tea.Cmd
	switch {
	case msg.err != nil && m.form != nil:
		m.form.err = msg.err.Error()
		return m, nil
	case msg.err != nil:
		flash = Flash(FlashError, "%s %s: %v", msg.op, msg.queue, msg.err)
	case msg.op == queueSend:
		m.form = nil
		m.queueList.id, m.msgList.id, m.onMessages = msg.queue, msg.id, true
		flash = Flash(FlashOK, "sent %s to %s, due %s", msg.id, msg.queue, rfcTime(msg.dueAt))
	default:
		flash = Flash(FlashOK, "purged %s: %d message(s) deleted", msg.queue, msg.purged)
	}
	m, cmd := m.Refresh()
	return m, tea.Batch(cmd, flash)
}

// String names the action.
func (o queueOp) String() string {
	if o == queueSend {
		return "send to"
	}
	return "purge"
}
