package queues

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/usertext"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// pollOp names a take's writes in the journal (its claims, then the
// decisions written back).
const pollOp = "queues: poll"

// pollDecideTimeout bounds how long a claimed batch waits for the
// operator: after it the consumer gives up and every message counts as
// undecided (redelivered after its backoff, or dropped on its final
// attempt), as when a handler throws.
const pollDecideTimeout = 10 * time.Minute

// PollKeys are the keys of the decision panel of a polled batch.
type PollKeys struct {
	widgets.NavKeys
	Ack, Retry, Nack, Apply key.Binding
	GiveBack                key.Binding // every message back to the queue at once
	Accept, Cancel          key.Binding // the retry delay input
}

// DefaultPollKeys returns the decision panel's default keys.
func DefaultPollKeys() PollKeys {
	return PollKeys{
		NavKeys:  widgets.DefaultNavKeys(),
		Ack:      key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "ack")),
		Retry:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "retry after a delay (reschedule)")),
		Nack:     key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "back off: nack (backoff)")),
		Apply:    key.NewBinding(key.WithKeys("enter", "ctrl+s"), key.WithHelp("enter", "apply the decisions")),
		GiveBack: key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "give back all (retry now), then apply")),
		Accept:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "set the delay")),
		Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "keep the old decision")),
	}
}

// pollPhase is where a poll stands.
type pollPhase int

const (
	pollClaiming      pollPhase = iota // listing and claiming the due messages
	pollDeciding                       // the batch is out of the store, waiting for the operator
	pollApplyingPhase                  // the decisions went to the consumer; it requeues, drops and acks
)

// pollItem is one claimed message and the operator's decision on it.
type pollItem struct {
	id       string
	body     json.RawMessage
	attempts int // the delivery number: stored attempts + 1
	decision coord.Decision
	delay    time.Duration // for DecisionRetry
	nacked   bool          // DecisionNone chosen, not left undecided
}

// pollLink connects the consumer handler, which runs inside runPoll's
// command and blocks there like a real consumer's handler, to the view.
type pollLink struct {
	batch    chan []pollItem // handler → view, buffered: never blocks
	verdicts chan []pollItem // view → handler, buffered: sent once
}

// pollState is a poll in progress.
type pollState struct {
	gen     int
	queue   string
	asked   int       // the messages the dialog said it would claim
	now     int64     // the poll's now: retry delays count from it
	started time.Time // the wall clock at the claim: its journal entries are newer
	phase   pollPhase
	link    pollLink
	items   []pollItem
	list    widgets.ListCursor
	editing bool // the retry delay input has the keys
	delayIn textinput.Model
}

// pollReport is the outcome of the last poll, shown until the cursor moves.
type pollReport struct {
	queue      string
	at         int64
	deliveries []coord.Delivery
	asked      int // the messages the dialog said it would claim
	err        error
}

// pollClaimed, pollApplying and pollDone answer the poll's commands.
type (
	pollClaimed struct {
		session, gen int
		items        []pollItem
		ok           bool // false: the poll ended without calling the handler
	}
	pollApplying struct{ session, gen int }
	pollDone     struct {
		session, gen int
		queue        string
		deliveries   []coord.Delivery
		err          error
	}
)

// runPoll polls queue once at now as a consumer with the reference's
// defaults (batch of 10, 5 attempts, 1 s backoff base) whose handler is
// the operator: it hands the claimed batch to the view and waits for the
// verdicts. The claimed messages are out of the store meanwhile, exactly
// as with any consumer.
func runPoll(s *store.Store, session, gen int, queue string, now int64, link pollLink) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), pollDecideTimeout)
		defer cancel()
		b := coord.NewBroker(s)
		b.Consume(queue, func(ctx context.Context, batch *coord.Batch) error {
			items := make([]pollItem, len(batch.Messages))
			for i, msg := range batch.Messages {
				items[i] = pollItem{id: msg.ID, body: msg.Body, attempts: msg.Attempts, decision: coord.DecisionNone}
			}
			link.batch <- items
			select {
			case vs := <-link.verdicts:
				for i, v := range vs {
					switch {
					case i >= len(batch.Messages):
					case v.decision == coord.DecisionAck:
						batch.Messages[i].Ack()
					case v.decision == coord.DecisionRetry:
						batch.Messages[i].RetryAfter(v.delay)
					}
				}
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}, coord.ConsumerOptions{})
		ds, err := b.PollQueue(store.WithWriteOp(ctx, pollOp), queue, now)
		close(link.batch)
		return pollDone{session: session, gen: gen, queue: queue, deliveries: ds, err: err}
	}
}

// awaitBatch waits for the batch the handler hands over.
func awaitBatch(session, gen int, link pollLink) tea.Cmd {
	return func() tea.Msg {
		items, ok := <-link.batch
		return pollClaimed{session: session, gen: gen, items: items, ok: ok}
	}
}

// sendVerdicts gives the decisions to the waiting handler (once: a second
// send finds the buffer taken and is dropped).
func sendVerdicts(session, gen int, link pollLink, items []pollItem) tea.Cmd {
	return func() tea.Msg {
		select {
		case link.verdicts <- items:
		default:
		}
		return pollApplying{session: session, gen: gen}
	}
}

// pollConfirmed answers the poll dialog: claim a batch of queue.
type pollConfirmed struct {
	session int
	queue   string
	asked   int // the messages the dialog said it would claim
}

// askPoll asks before a poll claims messages out of the selected queue,
// saying how many and from which queue.
func (m *Model) askPoll() tea.Cmd {
	q, _ := m.queue()
	n, session, name := min(q.Ready, coord.DefaultMaxBatchSize), m.Deps.Session, q.Name
	return views.Confirm(fmt.Sprintf("Poll %s: claim %d of its %d ready message(s)?", name, n, q.Ready), "claim",
		func() tea.Msg { return pollConfirmed{session: session, queue: name, asked: n} },
		fmt.Sprintf("Claims up to %d ready message(s) of %s as a consumer would: each is deleted from the queue (a check on its stamp) and held by kvdeck.",
			coord.DefaultMaxBatchSize, widgets.Sanitize(name)),
		"They are out of the store until you decide each one (ack, retry with a delay, nack) and apply: a live service's consumers cannot take them meanwhile.")
}

// pollOff says why t cannot poll: no queue is selected, or it has no
// ready message.
func (m Model) pollOff() string {
	q, ok := m.queue()
	switch {
	case !ok:
		return "select a queue to poll it"
	case q.Ready == 0:
		return fmt.Sprintf("%s has no ready message to claim (%d delayed)", q.Name, q.Delayed)
	}
	return ""
}

// startPoll claims a batch of the queue the dialog named.
func (m Model) startPoll(msg pollConfirmed) (Model, tea.Cmd) {
	if msg.session != m.Deps.Session || m.poll != nil {
		return m, nil
	}
	q := coord.QueueReport{Name: msg.queue}
	now := m.Deps.Now()
	link := pollLink{batch: make(chan []pollItem, 1), verdicts: make(chan []pollItem, 1)}
	in := widgets.NewInput("retry after ", "10s", m.Styles)
	in.SetValue("10s")
	m.poll = &pollState{gen: m.NextTag(), queue: q.Name, asked: msg.asked, now: now, started: time.Now(), link: link, delayIn: in}
	m.report = nil
	return m, tea.Batch(runPoll(m.Store, m.Deps.Session, m.poll.gen, q.Name, now, link), awaitBatch(m.Deps.Session, m.poll.gen, link))
}

// onClaimed shows the claimed batch for decisions.
func (m Model) onClaimed(msg pollClaimed) Model {
	if msg.session != m.Deps.Session || m.poll == nil || msg.gen != m.poll.gen || !msg.ok {
		return m
	}
	p := *m.poll
	p.items, p.phase = msg.items, pollDeciding
	m.poll = &p
	return m
}

// onApplying: the decisions are with the consumer.
func (m Model) onApplying(msg pollApplying) Model {
	if msg.session == m.Deps.Session && m.poll != nil && msg.gen == m.poll.gen {
		p := *m.poll
		p.phase = pollApplyingPhase
		m.poll = &p
	}
	return m
}

// onPollDone reports the poll's outcome and reloads.
func (m Model) onPollDone(msg pollDone) (Model, tea.Cmd) {
	if msg.session != m.Deps.Session || m.poll == nil || msg.gen != m.poll.gen {
		return m, nil
	}
	at, asked := m.poll.now, m.poll.asked
	m.poll = nil
	m.report = &pollReport{queue: msg.queue, at: at, deliveries: msg.deliveries, asked: asked, err: msg.err}
	m.keys.Close.SetEnabled(true)
	m.lists.Quiet()
	flash := views.Flash(views.FlashOK, "polled %s: %s", msg.queue, deliverySummary(msg.deliveries, asked))
	if msg.err != nil {
		flash = views.Flash(views.FlashError, "poll %s: %v (%s)", msg.queue, msg.err, deliverySummary(msg.deliveries, asked))
	}
	m, cmd := m.Refresh()
	return m, tea.Batch(cmd, flash)
}

// handlePoll handles keys while a batch is out: a decision per message,
// then apply.
func (m Model) handlePoll(msg tea.KeyMsg) (Model, tea.Cmd) {
	p := *m.poll
	m.poll = &p
	switch {
	case p.phase != pollDeciding:
		return m, nil // claiming or applying: nothing to decide
	case p.editing:
		return m.handleDelay(msg)
	case len(p.items) == 0:
		return m, nil
	}
	if cmd, ok := m.pollKeys.actions().Dispatch(&m, msg, m.ReadOnly); ok {
		return m, cmd
	}
	// Every other key (tabs, q, the list's own keys) waits: say why
	// instead of ignoring it.
	return m, views.Flash(views.FlashInfo, "%d claimed message(s) are out of the store until you decide: %s", len(p.items), m.pollKeys.hint())
}

// actions is the table of the decision panel's keys: each decides the
// selected message; enter and u ask before the decisions are applied.
func (k *PollKeys) actions() views.Actions[Model] {
	nav := func(m *Model, msg tea.KeyMsg) tea.Cmd {
		m.poll.list.Handle(msg, m.pollKeys.NavKeys, m.poll.ids(), m.msgRows())
		return nil
	}
	return append(views.Actions[Model]{
		{Binding: &k.Up, Do: nav, Short: 1},
		{Binding: &k.Down, Do: nav, Short: 2},
		{Binding: &k.Ack, Do: decideKey(coord.DecisionAck), Short: 3},
		{Binding: &k.Retry, Do: views.Run((*Model).editDelay), Short: 4},
		{Binding: &k.Nack, Do: decideKey(coord.DecisionNone), Short: 5},
		{Binding: &k.Apply, What: "apply the decisions", Asks: views.AskDialog, Do: views.Run((*Model).askApply), Short: 6},
		{Binding: &k.GiveBack, What: "give every message back", Asks: views.AskDialog, Do: views.Run((*Model).giveBack), Short: 7},
	}, views.Together(0, nav, &k.PageUp, &k.PageDown, &k.Top, &k.Bottom)...)
}

// hint names the decision panel's keys, in a line.
func (k PollKeys) hint() string {
	return views.Hint("%s ack · %s retry later · %s back off (nack), then %s applies; %s gives them all back", k.Ack, k.Retry, k.Nack, k.Apply, k.GiveBack)
}

// decideKey decides the selected message d and moves to the next.
func decideKey(d coord.Decision) func(*Model, tea.KeyMsg) tea.Cmd {
	return func(m *Model, _ tea.KeyMsg) tea.Cmd {
		p := m.poll
		p.items = decide(p.items, p.list.Cur, d, 0)
		p.list.Set(p.list.Cur+1, p.ids(), m.msgRows())
		return nil
	}
}

// editDelay opens the retry delay input on the selected message.
func (m *Model) editDelay() tea.Cmd {
	p := m.poll
	if it := p.items[p.list.Cur]; it.decision == coord.DecisionRetry {
		p.delayIn.SetValue(it.delay.String())
	}
	p.editing = true
	p.delayIn.CursorEnd()
	return p.delayIn.Focus()
}

// giveBack decides every message "retry now" and asks to apply.
func (m *Model) giveBack() tea.Cmd {
	p := m.poll
	for i := range p.items {
		p.items = decide(p.items, i, coord.DecisionRetry, 0)
	}
	return m.askApply()
}

// handleDelay handles keys while the retry delay input has them.
func (m Model) handleDelay(msg tea.KeyMsg) (Model, tea.Cmd) {
	p := m.poll
	switch {
	case key.Matches(msg, m.pollKeys.Cancel):
		p.editing = false
		p.delayIn.Blur()
		return m, nil
	case key.Matches(msg, m.pollKeys.Accept):
		d, err := parseDelay(p.delayIn.Value())
		if err != nil {
			return m, views.Flash(views.FlashError, "retry delay: %v", err)
		}
		p.editing = false
		p.delayIn.Blur()
		p.items = decide(p.items, p.list.Cur, coord.DecisionRetry, d)
		p.list.Set(p.list.Cur+1, p.ids(), m.msgRows())
		return m, nil
	}
	var cmd tea.Cmd
	p.delayIn, cmd = p.delayIn.Update(msg)
	return m, cmd
}

// decide returns items with item i decided (a copy: the model's copies
// share the old slice).
func decide(items []pollItem, i int, d coord.Decision, delay time.Duration) []pollItem {
	out := append([]pollItem(nil), items...)
	out[i].decision, out[i].delay, out[i].nacked = d, delay, d == coord.DecisionNone
	return out
}

// askApply asks to apply the decisions, saying what each will do.
func (m Model) askApply() tea.Cmd {
	p := m.poll
	counts := map[string]int{}
	for _, it := range p.items {
		counts[p.outcome(it)]++
	}
	var parts []string
	for _, o := range []string{"consumed", "requeued", "dropped"} {
		if counts[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[o], o))
		}
	}
	lines := []string{strings.Join(parts, ", ") + ": the decisions on the " + fmt.Sprint(len(p.items)) + " message(s) claimed from " + widgets.Sanitize(p.queue) + "."}
	if counts["dropped"] > 0 {
		lines = append(lines, "A dropped message leaves no trace: nothing keeps it (no dead letter).")
	}
	lines = append(lines, "Until you confirm, the batch stays out of the store, as with any consumer.")
	return views.Confirm("Apply these decisions?", "apply", sendVerdicts(m.Deps.Session, p.gen, p.link, p.items), lines...)
}

// outcome is what applying a decision will do to a message: "consumed",
// "requeued" or "dropped" (not acked on its final attempt).
func (p pollState) outcome(it pollItem) string {
	switch {
	case it.decision == coord.DecisionAck:
		return "consumed"
	case it.attempts >= coord.DefaultMaxAttempts:
		return "dropped"
	}
	return "requeued"
}

// ids are the claimed messages' ids.
func (p pollState) ids() []string {
	out := make([]string, len(p.items))
	for i, it := range p.items {
		out[i] = it.id
	}
	return out
}

// help lists the live keys of the decision panel.
func (p pollState) help(k PollKeys) []key.Binding {
	switch {
	case p.phase != pollDeciding:
		return nil
	case p.editing:
		return []key.Binding{k.Accept, k.Cancel}
	}
	return k.actions().ShortHelp(false)
}

// parseDelay reads a retry or send delay: empty for none, else a Go
// duration of whole milliseconds, >= 0.
func parseDelay(s string) (time.Duration, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	d, err := usertext.ParseDurationAtLeast(s, 0)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", strings.TrimSpace(s), err)
	}
	return d, nil
}

// deliverySummary counts a poll's outcomes: "1 acked, 2 requeued", and
// says when another consumer took messages the dialog counted (asked).
func deliverySummary(ds []coord.Delivery, asked int) string {
	return coordkit.DueSummary(deliveryCounts(ds), len(ds), asked, "message(s)", "consumer")
}

// deliveryCounts counts a poll's outcomes.
func deliveryCounts(ds []coord.Delivery) string {
	n := map[coord.DeliveryOutcome]int{}
	for _, d := range ds {
		n[d.Outcome]++
	}
	var parts []string
	for _, o := range []coord.DeliveryOutcome{coord.OutcomeAcked, coord.OutcomeRequeued, coord.OutcomeDropped} {
		if n[o] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[o], o))
		}
	}
	return strings.Join(parts, ", ")
}
