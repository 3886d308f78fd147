package views

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/store/coord"
	"kvdeck/themes"
)

// QueuesKeys are the Queues view's key bindings.
type QueuesKeys struct {
	NavKeys
	Queues, Messages        key.Binding // which list has the keys
	Reload                  key.Binding
	Send, Peek, Poll, Purge key.Binding
	Close                   key.Binding // closes the peek or the poll report
}

// DefaultQueuesKeys returns the Queues view's default key bindings.
func DefaultQueuesKeys() QueuesKeys {
	return QueuesKeys{
		NavKeys:  DefaultNavKeys(),
		Queues:   key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "queues")),
		Messages: key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "the queue's messages")),
		Reload:   key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "reload")),
		Send:     key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "send a message")),
		Peek:     key.NewBinding(key.WithKeys("enter", "v"), key.WithHelp("enter", "peek: full body")),
		Poll:     key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "poll a batch as a consumer")),
		Purge:    key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "purge (confirm)")),
		Close:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close"), key.WithDisabled()),
	}
}

// Queues shows each queue's depth, the age of its oldest ready message,
// its attempts histogram and its messages; it sends, peeks, polls a batch
// as a consumer with a decision per message, and purges.
type Queues struct {
	coordBase
	keys     QueuesKeys
	pollKeys PollKeys

	queues   []coord.QueueReport
	finds    map[string][]coord.Finding
	loadedAt int64 // the now the queues were inspected at

	queueList  listCursor // id: the queue name
	msgList    listCursor // id: the message id
	onMessages bool       // the message list has the keys (else the queues)

	peek   *peekState  // the full body of a message
	poll   *pollState  // a batch claimed as a consumer, being decided
	report *pollReport // the outcome of the last poll
}

// peekState is the full body of one message, scrolled.
type peekState struct {
	msg coord.QueueMessage
	off int
}

// NewQueues returns the Queues view over deps.Store.
func NewQueues(deps Deps, styles themes.Styles) Queues {
	m := Queues{coordBase: newCoordBase(deps, styles), keys: DefaultQueuesKeys(), pollKeys: DefaultPollKeys()}
	if m.readOnly {
		disableBindings(&m.keys.Send, &m.keys.Poll, &m.keys.Purge)
	}
	return m
}

// Init loads the queues.
func (m Queues) Init() tea.Cmd {
	if m.store == nil {
		return nil
	}
	return loadQueues(m.store, m.deps.Session, m.gen, m.deps.Now())
}

// SetSize sets the view's rectangle.
func (m *Queues) SetSize(w, h int) {
	m.width, m.height = w, h
	if m.form != nil {
		m.form.setWidth(m.rightInner())
	}
}

// Busy reports whether a load or an action is in flight. A batch waiting
// for the operator's decisions is not: the queues keep refreshing.
func (m Queues) Busy() bool {
	return m.loading || m.acting || m.poll != nil && m.poll.phase != pollDeciding
}

// Capturing reports whether the view takes every key: a form, or a batch
// out of the store (q must not quit and lose it, as a crashed consumer
// would).
func (m Queues) Capturing() bool { return m.form != nil || m.poll != nil }

// Update handles a message.
func (m Queues) Update(msg tea.Msg) (Queues, tea.Cmd) {
	switch msg := msg.(type) {
	case queuesLoaded:
		return m.onLoaded(msg), nil
	case queueActed:
		return m.onActed(msg)
	case pollClaimed:
		return m.onClaimed(msg), nil
	case pollApplying:
		return m.onApplying(msg), nil
	case pollDone:
		return m.onPollDone(msg)
	case tea.MouseMsg:
		if k, ok := wheelKey(msg); ok {
			return m.Update(k)
		}
	case tea.KeyMsg:
		if !m.focused {
			return m, nil
		}
		switch {
		case m.form != nil:
			return m.handleForm(msg)
		case m.poll != nil:
			return m.handlePoll(msg)
		case m.peek != nil:
			return m.handlePeek(msg), nil
		}
		return m.handleLists(msg)
	}
	return m, nil
}

// Refresh re-reads the queues: the store changed.
func (m Queues) Refresh() (Queues, tea.Cmd) {
	if !m.startLoad() {
		return m, nil
	}
	return m, loadQueues(m.store, m.deps.Session, m.gen, m.deps.Now())
}

// ShortHelp returns the bindings for the one-line help.
func (m Queues) ShortHelp() []key.Binding {
	switch {
	case m.form != nil:
		return m.form.help()
	case m.poll != nil:
		return m.poll.help(m.pollKeys)
	case m.peek != nil:
		return []key.Binding{m.keys.Up, m.keys.Down, m.keys.Close}
	}
	k := m.keys
	return []key.Binding{k.Send, k.Peek, k.Poll, k.Purge, k.Messages}
}

// FullHelp returns every live binding, in columns.
func (m Queues) FullHelp() [][]key.Binding {
	if m.form != nil || m.poll != nil || m.peek != nil {
		return [][]key.Binding{m.ShortHelp()}
	}
	k := m.keys
	return [][]key.Binding{k.bindings(), {k.Queues, k.Messages, k.Reload, k.Close}, {k.Send, k.Peek, k.Poll, k.Purge}}
}

// queueNames are the ids of the queue list.
func (m Queues) queueNames() []string {
	out := make([]string, len(m.queues))
	for i, q := range m.queues {
		out[i] = q.Name
	}
	return out
}

// queue returns the selected queue.
func (m Queues) queue() (coord.QueueReport, bool) {
	if m.queueList.cur < 0 || m.queueList.cur >= len(m.queues) {
		return coord.QueueReport{}, false
	}
	return m.queues[m.queueList.cur], true
}

// msgIDs are the ids of the selected queue's messages.
func (m Queues) msgIDs() []string {
	q, _ := m.queue()
	out := make([]string, len(q.Messages))
	for i, msg := range q.Messages {
		out[i] = msg.ID
	}
	return out
}

// message returns the selected message.
func (m Queues) message() (coord.QueueMessage, bool) {
	q, ok := m.queue()
	if !ok || m.msgList.cur < 0 || m.msgList.cur >= len(q.Messages) {
		return coord.QueueMessage{}, false
	}
	return q.Messages[m.msgList.cur], true
}
