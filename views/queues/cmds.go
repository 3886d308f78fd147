package queues

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views"
	"kvdeck/views/coordkit"
)

// queuesLoaded answers the load of inspectQueues.
type queuesLoaded = coordkit.Loaded[[]coord.QueueReport]

// inspectQueues inspects every queue at now (final attempts judged with
// the reference's default of 5 attempts).
func inspectQueues(ctx context.Context, s *store.Store, now int64) ([]coord.QueueReport, []coord.Finding, error) {
	return coord.InspectQueues(ctx, s, "", now, 0)
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
	return views.StoreCmd(views.WriteTimeout, func(ctx context.Context) tea.Msg {
		due := s.Now() + delay.Milliseconds()
		id, err := coord.Send(store.WithWriteOp(ctx, "queues: send"), s, queue, body, delay)
		return queueActed{session: session, op: queueSend, queue: queue, id: id, dueAt: due, err: err}
	})
}

// purgeQueue deletes every message of queue.
func purgeQueue(s *store.Store, session int, queue string) tea.Cmd {
	return views.StoreCmd(views.WriteTimeout, func(ctx context.Context) tea.Msg {
		n, err := coord.Purge(store.WithWriteOp(ctx, "queues: purge"), s, queue)
		return queueActed{session: session, op: queuePurge, queue: queue, purged: n, err: err}
	})
}

// onLoaded takes a load's answer, keeping both selections by name and id.
func (m Model) onLoaded(msg queuesLoaded) (Model, tea.Cmd) {
	if !m.LoadAnswered(msg.Session, msg.Gen, msg.Err) {
		return m, nil
	}
	m.queues, m.finds, m.loadedAt = msg.Rows, coordkit.FindingsByKey(msg.Findings), msg.Now
	m.trends = m.trends.note(msg.Rows, msg.Now)
	gone := m.lists.FollowSaying(m.sides(),
		coordkit.Gone{What: "queue", Why: "emptied or purged"},
		coordkit.Gone{What: "message", Why: "delivered, dropped or purged"})
	if m.poll != nil {
		return m, nil // the batch out is claimed: its messages are away until decided
	}
	m.pruneMarks()
	return m, gone
}

// onActed reports a send or a purge and reloads.
func (m Model) onActed(msg queueActed) (Model, tea.Cmd) {
	if !m.ActionAnswered(msg.session) {
		return m, nil
	}
	var flash tea.Cmd
	switch {
	case msg.err != nil && m.Form != nil:
		m.Form.Err = msg.err.Error()
		return m, nil
	case msg.err != nil:
		flash = views.Flash(views.FlashError, "%s %s: %v", msg.op, msg.queue, msg.err)
	case msg.op == queueSend:
		m.Form = nil
		m.lists.Groups.ID, m.lists.Items.ID, m.lists.OnItems = msg.queue, msg.id, true
		flash = views.Flash(views.FlashOK, "sent %s to %s, due %s", msg.id, msg.queue, usertext.FormatTime(msg.dueAt))
	default:
		flash = views.Flash(views.FlashOK, "purged %s: %d message(s) deleted", msg.queue, msg.purged)
	}
	m.lists.Quiet()
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
