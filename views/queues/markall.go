package queues

import (
	"context"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Marking every message of a queue (asynqmon's "retry
// all"): the inspection shows a queue's first coord.MaxQueueSample
// messages but counts them all. ctrl+a marks the shown ones and, when the
// queue holds more (and no filter narrows the list), says so; ctrl+a
// again reads the queue in pages (coord.QueueMessagesPage: 1,000 rows or
// ~1 MiB a request, one tea.Cmd each) and marks each message with the
// stamp and value read, so a bulk commit still skips a message changed
// since. esc stops between pages (the marks made stay); ctrl+a once more
// clears every mark. A mark holds its message's value: a queue of more
// than markBounds.count messages is refused, and marking stops once the
// marks hold markBounds.bytes of values.

// markBounds bounds the marks of a whole queue: New sets the tab's
// (defaultMarkBounds), a test its own on its model.
type markBounds struct {
	count int   // messages marked at most
	bytes int64 // values the marks hold at most
}

// defaultMarkBounds are the bounds the tab runs with.
func defaultMarkBounds() markBounds { return markBounds{count: 100000, bytes: 64 << 20} }

// markStop stops a reading of the queue between pages.
var markStop = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop marking"))

// markAllState is a reading of every message of a queue, under way.
type markAllState struct {
	queue string
	total int   // the queue's messages at the inspection
	gen   int   // m.markGen when it started
	bytes int64 // the values the marks hold
}

// markPage answers readMarkPage.
type markPage struct {
	session, gen int
	queue        string
	page         coord.QueuePage
	err          error
}

// readMarkPage reads the page of queue after cursor.
func readMarkPage(s *store.Store, session, gen int, queue, cursor string, now int64) tea.Cmd {
	return views.StoreCmd(views.ReadTimeout, func(ctx context.Context) tea.Msg {
		p, err := coord.QueueMessagesPage(ctx, s, queue, cursor, 0, 0, now)
		return markPage{session: session, gen: gen, queue: queue, page: p, err: err}
	})
}

// markAllKey handles ctrl+a on the messages of q.
func (m Model) markAllKey(q coord.QueueReport) (Model, tea.Cmd) {
	if m.markAll != nil { // ctrl+a while reading: stop and clear
		m.markAll, m.allOf = nil, ""
		m.marks.Clear()
		return m, views.Flash(views.FlashInfo, "marking stopped, marks cleared")
	}
	if m.allOf != "" && m.allOf == q.Name {
		m.allOf = ""
		m.marks.Clear()
		return m, nil
	}
	shown := m.shownMessages(q)
	total := q.Ready + q.Delayed
	more := m.filter.Text() == "" && total > len(shown) && len(shown) > 0
	rows := make([]widgets.Mark, 0, len(shown))
	every := true
	for _, it := range shown {
		mk := messageMark(it)
		rows = append(rows, mk)
		every = every && m.marks.Has(mk.ID)
	}
	if more && every {
		return m.startMarkAll(q.Name, total)
	}
	m.allOf = ""
	m.marks.All(rows)
	if more && m.marks.Len() > 0 {
		return m, views.Flash(views.FlashInfo, "%s of %s marked · ctrl+a again: all %s in the queue", count(len(shown)), count(total), count(total))
	}
	return m, nil
}

// startMarkAll starts reading every message of queue (total at the
// inspection), unless the marks would hold too many.
func (m Model) startMarkAll(queue string, total int) (Model, tea.Cmd) {
	if total > m.markMax.count {
		return m, views.Flash(views.FlashError, "%s holds %s messages: marking them all would hold every body in memory; at most %s are marked at once",
			widgets.Sanitize(queue), count(total), count(m.markMax.count))
	}
	if m.Store == nil {
		return m, nil
	}
	st := &markAllState{queue: queue, total: total}
	for _, mk := range m.marks.List() {
		st.bytes += int64(len(mk.Value))
	}
	m.markGen++
	st.gen = m.markGen
	m.markAll = st
	return m, readMarkPage(m.Store, m.Deps.Session, st.gen, queue, "", m.Deps.Now())
}

// markingLine is how far the marking under way has come, drawn under
// the messages while it reads (hint). It is the view's, not a flash: a
// flash is a command of its own, and one sent with a page read could
// arrive after the end's and replace it ("marking 2,000 of 3,000…" after
// "3,000 marked", seen under load).
func (m Model) markingLine() string {
	st := m.markAll
	return fmt.Sprintf("marking %s of %s… esc stops", count(m.marks.Len()), count(max(st.total, m.marks.Len())))
}

// onMarkPage marks the messages of one page and reads the next.
func (m Model) onMarkPage(msg markPage) (Model, tea.Cmd) {
	st := m.markAll
	if st == nil || msg.gen != st.gen || msg.session != m.Deps.Session {
		return m, nil // stopped, or another store's
	}
	if msg.err != nil {
		m.markAll = nil
		return m, views.Flash(views.FlashError, "marking stopped (%s marked): %v", count(m.marks.Len()), msg.err)
	}
	for _, it := range msg.page.Messages {
		mk := messageMark(it)
		if m.marks.Has(mk.ID) {
			continue
		}
		if m.marks.Len() >= m.markMax.count || st.bytes+int64(len(mk.Value)) > m.markMax.bytes {
			m.markAll = nil
			return m, views.Flash(views.FlashError, "marking stopped at %s messages: marks hold at most %s messages or %d MiB of bodies; act on these (;), then ctrl+a again",
				count(m.marks.Len()), count(m.markMax.count), m.markMax.bytes>>20)
		}
		st.bytes += int64(len(mk.Value))
		m.marks.Toggle(mk)
	}
	if msg.page.Cursor == "" {
		m.markAll, m.allOf = nil, st.queue
		return m, views.Flash(views.FlashInfo, "%s marked: every message of %s · ; acts on them · ctrl+a clears",
			count(m.marks.Len()), widgets.Sanitize(st.queue))
	}
	return m, readMarkPage(m.Store, m.Deps.Session, st.gen, st.queue, msg.page.Cursor, m.Deps.Now())
}

// stopMarkAll stops the reading (esc); the marks made stay.
func (m Model) stopMarkAll() (Model, tea.Cmd) {
	m.markAll = nil
	return m, views.Flash(views.FlashInfo, "marking stopped: %s marked (ctrl+a clears)", count(m.marks.Len()))
}

// count writes n with thousands separators (usertext.Count): 3,412.
func count(n int) string { return usertext.Count(int64(n)) }
