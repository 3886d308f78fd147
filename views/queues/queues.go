// Package queues is the Queues tab: the queues with their depth and
// histogram, the messages, send and purge, and a poll that decides each
// claimed message the way a consumer's handler would.
package queues

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/store/coord"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// Keys are the Queues view's key bindings.
type Keys struct {
	coordkit.Keys // o: the message's raw key in Browse
	widgets.MarkKeys
	Queues, Messages        key.Binding // which list has the keys
	Send, Peek, Poll, Purge key.Binding
	Close                   key.Binding // closes the peek or the poll report
}

// DefaultKeys returns the Queues view's default key bindings.
func DefaultKeys() Keys {
	k := Keys{
		Keys:     coordkit.DefaultKeys(),
		MarkKeys: widgets.DefaultMarkKeys(),
		Queues:   key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "queues")),
		Messages: key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "the queue's messages")),
		Send:     key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "send a message")),
		Peek:     key.NewBinding(key.WithKeys("enter", "v"), key.WithHelp("enter/v", "peek: view the full body")),
		Poll:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "take a batch as a consumer")),
		Purge:    key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "purge: delete every message (confirm)")),
		Close:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close"), key.WithDisabled()),
	}
	// ctrl+a again marks every message of the queue (markall.go).
	k.MarkAll.SetHelp("ctrl+a", "mark all shown, again the queue / clear")
	return k
}

// actions is the Queues tab's table of keys: n opens the send form, t
// (a poll claims messages out of the queue) and d ask.
func (k *Keys) actions() views.Actions[Model] {
	as := coordkit.ListActions(&k.Keys, &k.Queues, &k.Messages, 5, (*Model).twoLists)
	// Before the filter's esc: esc closes the poll report first.
	as = append(as, views.Action[Model]{Binding: &k.Close, Do: views.Run((*Model).closeReportKey), Col: 1})
	as = append(as, coordkit.ReadActions[Model](&k.Keys, views.Step(Model.handleFilter), (*Model).showInBrowse, 6)...)
	as = append(as, views.Actions[Model]{
		{Binding: &k.Send, What: "send a message", Asks: views.AskForm, Do: views.Run((*Model).startSend), Col: 2, Short: 1},
		{Binding: &k.Peek, Do: views.Run((*Model).peekKey), Col: 2, Short: 2},
		{Binding: &k.Poll, What: "poll a batch as a consumer", Asks: views.AskDialog, Do: views.Run((*Model).askPoll), Off: Model.pollOff, Col: 2, Short: 3},
		{Binding: &k.Purge, What: "purge a queue", Asks: views.AskDialog, Do: views.Run((*Model).askPurge), Off: Model.purgeOff, Col: 2, Short: 4},
	}...)
	as = append(as, views.Together(3, views.Step(Model.handleMark), k.MarkKeys.All()...)...)
	return coordkit.FleetOff(as, Model.InFleet, &k.Fleet)
}

// Model shows each queue's depth, the age of its oldest ready message,
// its attempts histogram and its messages; it sends, peeks, polls a batch
// as a consumer with a decision per message, and purges.
type Model struct {
	coordkit.Base
	keys     Keys
	pollKeys PollKeys

	queues   []coord.QueueReport
	finds    coordkit.Findings
	loadedAt int64  // the now the queues were inspected at
	trends   trends // each queue's depth and oldest ready age over the session

	// lists: the queues (id: the queue name) and the selected queue's
	// messages (id: the message id).
	lists  coordkit.Lists
	filter widgets.Filter

	peek   *peekState    // the full body of a message
	poll   *pollState    // a batch claimed as a consumer, being decided
	report *pollReport   // the outcome of the last poll
	marks  widgets.Marks // the messages marked for a bulk action (bulk.go)
	// markAll reads every message of a queue to mark it (markall.go);
	// allOf names the queue whose every message was marked, markGen
	// drops the pages of a stopped reading.
	markAll *markAllState
	allOf   string
	markGen int
	markMax markBounds // how many marks, and how much of values, they hold
}

// peekState is the full body of one message, scrolled.
type peekState struct {
	msg   coord.QueueMessage
	off   int
	cache *widgets.ValueCache // the body's lines, prepared once
}

// New returns the Queues view over deps.Store.
func New(deps views.Deps, styles themes.Styles) Model {
	m := Model{Base: coordkit.NewBase(deps, styles, coordkit.Load(inspectQueues), fleetDef(styles)), keys: DefaultKeys(), pollKeys: DefaultPollKeys(),
		filter: widgets.NewFilter("filter: queue, message id or body", styles), markMax: defaultMarkBounds()}
	return m
}

// Init loads the queues.
func (m Model) Init() tea.Cmd { return m.InitCmd() }

// SetSize sets the view's rectangle.
func (m *Model) SetSize(w, h int) {
	m.Resize(w, h)
	m.filter.SetLineWidth(m.leftWidth() - m.Styles.Pane.GetHorizontalFrameSize())
	if m.Form != nil {
		m.Form.SetWidth(m.rightInner())
	}
}

// Busy reports whether a load or an action is in flight. A batch waiting
// for the operator's decisions is not: the queues keep refreshing.
func (m Model) Busy() bool {
	return m.Loading || m.Acting || m.markAll != nil || m.poll != nil && m.poll.phase != pollDeciding
}

// Capturing reports whether the view takes every key: a form, or a batch
// out of the store (q must not quit and lose it, as a crashed consumer
// would).
func (m Model) Capturing() bool { return m.Form != nil || m.poll != nil || m.filter.Typing() }

// Update handles a message.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if cmd, ok := coordkit.Route(&m, msg, Model.Update, Model.onClick, m.keys.actions); ok {
		return m, cmd
	}
	switch msg := msg.(type) {
	case queuesLoaded:
		return m.onLoaded(msg)
	case queueActed:
		return m.onActed(msg)
	case pollConfirmed:
		return m.startPoll(msg)
	case pollClaimed:
		return m.onClaimed(msg), nil
	case pollApplying:
		return m.onApplying(msg), nil
	case pollDone:
		return m.onPollDone(msg)
	case markPage:
		return m.onMarkPage(msg)
	case views.BulkDoneMsg:
		if m.Focused {
			m.marks.Clear()
			m.allOf = ""
		}
	case tea.KeyMsg:
		switch {
		case m.markAll != nil && key.Matches(msg, markStop):
			return m.stopMarkAll()
		case m.Form != nil:
			return m.handleForm(msg)
		case m.poll != nil:
			return m.handlePoll(msg)
		case m.peek != nil:
			return m.handlePeek(msg), nil
		case m.filter.Typing():
			return m.handleFilter(msg)
		}
		return m.keys.actions().Handle(m, msg, m.ReadOnly) // the lists
	}
	return m, nil
}

// Refresh re-reads the queues: the store changed (coordkit's RefreshCmd).
func (m Model) Refresh() (Model, tea.Cmd) {
	cmd := m.RefreshCmd()
	return m, cmd
}

// ShortHelp returns the bindings for the one-line help.
func (m Model) ShortHelp() []key.Binding {
	switch {
	case m.InFleet() || m.Form != nil:
	case m.poll != nil:
		return m.poll.help(m.pollKeys)
	case m.peek != nil:
		return []key.Binding{m.keys.Up, m.keys.Down, m.keys.Close}
	case m.markAll != nil && !m.filter.Typing():
		return []key.Binding{markStop, m.keys.MarkAll}
	}
	return coordkit.ShortHelp(m.Base, m.filter, m.keys.Fleet, m.keys.actions())
}

// FullHelp returns every live binding, in columns.
func (m Model) FullHelp() [][]key.Binding {
	if !m.InFleet() && (m.poll != nil || m.peek != nil) {
		return [][]key.Binding{m.ShortHelp()}
	}
	return coordkit.FullHelp(m.Base, m.filter, m.keys.Fleet, m.keys.actions())
}

// sides are the queue list and the selected queue's messages, read from
// m as it is when coordkit.Lists calls them; a move closes the last
// poll's report.
func (m *Model) sides() coordkit.Sides {
	return coordkit.Sides{
		Groups: func() ([]string, int) { return m.queueNames(), m.queueRows() },
		Items:  func() ([]string, int) { return m.msgIDs(), m.msgRows() },
		Leave:  m.closeReport,
	}
}

// twoLists are the lists and their sides, for coordkit.ListActions.
func (m *Model) twoLists() (*coordkit.Lists, coordkit.Sides) { return &m.lists, m.sides() }

// queueNames are the ids of the queue list.
func (m Model) queueNames() []string {
	return widgets.IDs(m.shownQueues(), func(q coord.QueueReport) string { return q.Name })
}

// queue returns the selected queue.
func (m Model) queue() (coord.QueueReport, bool) {
	return widgets.Selected(m.lists.Groups, m.shownQueues())
}

// msgIDs are the ids of the selected queue's messages.
func (m Model) msgIDs() []string {
	q, _ := m.queue()
	return widgets.IDs(m.shownMessages(q), func(msg coord.QueueMessage) string { return msg.ID })
}

// message returns the selected message.
func (m Model) message() (coord.QueueMessage, bool) {
	q, _ := m.queue() // no queue: no messages
	return widgets.Selected(m.lists.Items, m.shownMessages(q))
}
