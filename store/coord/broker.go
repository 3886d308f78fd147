package coord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"kvdeck/store"
)

// Consumer defaults of the reference.
const (
	DefaultMaxBatchSize   = 10
	DefaultMaxAttempts    = 5
	DefaultBaseRetryDelay = time.Second
)

// ConsumerOptions tune a consumer; the zero value is the reference's
// defaults.
type ConsumerOptions struct {
	// MaxBatchSize caps the messages of one poll (DefaultMaxBatchSize).
	MaxBatchSize int
	// MaxAttempts drops a message instead of requeueing it when its stored
	// attempts+1 reaches it (DefaultMaxAttempts).
	MaxAttempts int
	// BaseRetryDelay is the first backoff of an undecided message; it
	// doubles per attempt (DefaultBaseRetryDelay).
	BaseRetryDelay time.Duration
	// DeadLetter keeps a dropped message under ["kvdeck_dead_letter",
	// queue, id] as {"body","attempts","droppedAt"}. Off by default:
	// services drop without trace.
	DeadLetter bool
}

func (o ConsumerOptions) withDefaults() ConsumerOptions {
	if o.MaxBatchSize <= 0 {
		o.MaxBatchSize = DefaultMaxBatchSize
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.BaseRetryDelay <= 0 {
		o.BaseRetryDelay = DefaultBaseRetryDelay
	}
	return o
}

// Backoff is the delay before redelivering an undecided message whose new
// stored attempts count is attempts (>= 1): base·2^(attempts-1).
func Backoff(base time.Duration, attempts int) time.Duration {
	shift := min(max(attempts-1, 0), 30) // 2^30 s is already decades
	return base << shift
}

// Decision is a consumer's verdict on one delivered message.
type Decision string

// The decisions. DecisionNone (no call, or a failing handler) redelivers
// with backoff, like a retry without a delay.
const (
	DecisionNone  Decision = "none"
	DecisionAck   Decision = "ack"
	DecisionRetry Decision = "retry"
)

// Message is one delivered message. Its methods may be called from any
// goroutine until the handler returns; the last call wins.
type Message struct {
	Queue string
	ID    string
	Body  json.RawMessage
	// Attempts is the delivery number: the stored attempts + 1.
	Attempts int
	// Timestamp is the poll's now.
	Timestamp int64

	mu       sync.Mutex
	decision Decision
	delay    *time.Duration
}

// Ack consumes the message: it is not redelivered.
func (m *Message) Ack() { m.decide(DecisionAck, nil) }

// Retry asks for a redelivery after the default backoff.
func (m *Message) Retry() { m.decide(DecisionRetry, nil) }

// RetryAfter asks for a redelivery d after the poll's now.
func (m *Message) RetryAfter(d time.Duration) { m.decide(DecisionRetry, &d) }

func (m *Message) decide(d Decision, delay *time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.decision, m.delay = d, delay
}

func (m *Message) verdict() (Decision, *time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.decision == "" {
		return DecisionNone, nil
	}
	return m.decision, m.delay
}

// Batch is what a consumer handler gets: the claimed messages of one poll.
type Batch struct {
	Queue    string
	Messages []*Message
}

// ConsumerHandler processes a batch; an error is the reference's throw:
// the decisions made before it stand, the other messages are redelivered.
// A panic is not recovered: like a consumer that crashed, it loses the
// claimed messages (a weak spot of the reference that inspection cannot
// see afterwards).
type ConsumerHandler func(ctx context.Context, b *Batch) error

// DeliveryOutcome is what happened to a delivered message after the handler.
type DeliveryOutcome string

// The outcomes of a delivery.
const (
	OutcomeAcked    DeliveryOutcome = "acked"
	OutcomeRequeued DeliveryOutcome = "requeued"
	OutcomeDropped  DeliveryOutcome = "dropped"
)

// Delivery reports one delivered message of a poll.
type Delivery struct {
	Queue    string
	ID       string
	Body     json.RawMessage
	Attempts int
	Decision Decision
	Outcome  DeliveryOutcome
	// NextDueAt is the due time of the requeued message.
	NextDueAt int64
}

// Broker polls registered consumers like the reference's QueueBroker. It is
// safe for concurrent use.
type Broker struct {
	store     *store.Store
	mu        sync.Mutex
	consumers []consumer
}

type consumer struct {
	queue   string
	handler ConsumerHandler
	opts    ConsumerOptions
}

// NewBroker returns a broker over s with no consumers.
func NewBroker(s *store.Store) *Broker { return &Broker{store: s} }

// Consume registers handler as the consumer of queue, replacing an earlier
// one.
func (b *Broker) Consume(queue string, handler ConsumerHandler, opts ConsumerOptions) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := consumer{queue: queue, handler: handler, opts: opts.withDefaults()}
	for i := range b.consumers {
		if b.consumers[i].queue == queue {
			b.consumers[i] = c
			return
		}
	}
	b.consumers = append(b.consumers, c)
}

// Poll delivers the due messages of every registered queue at now, in
// registration order.
func (b *Broker) Poll(ctx context.Context, now int64) ([]Delivery, error) {
	b.mu.Lock()
	cs := append([]consumer(nil), b.consumers...)
	b.mu.Unlock()
	var out []Delivery
	for _, c := range cs {
		d, err := b.deliver(ctx, c, now)
		out = append(out, d...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// PollQueue delivers the due messages of one registered queue at now.
func (b *Broker) PollQueue(ctx context.Context, queue string, now int64) ([]Delivery, error) {
	b.mu.Lock()
	var c consumer
	found := false
	for _, reg := range b.consumers {
		if reg.queue == queue {
			c, found = reg, true
		}
	}
	b.mu.Unlock()
	if !found {
		return nil, fmt.Errorf("%w: no consumer is registered for queue %q", ErrInvalidArgument, queue)
	}
	return b.deliver(ctx, c, now)
}

// deliver lists the due range, claims each entry (check stamp + delete),
// hands the claimed ones to the handler, then requeues or drops every
// message that was not acked.
func (b *Broker) deliver(ctx context.Context, c consumer, now int64) ([]Delivery, error) {
	page, err := b.store.List(ctx, dueRange(c.queue, now, c.opts.MaxBatchSize))
	if err != nil {
		return nil, fmt.Errorf("poll %s: %w", c.queue, err)
	}
	var claimed []QueuedMessage
	for _, e := range page.Entries {
		qm, err := parseMessage(e)
		if err != nil {
			continue // inspection reports it; kvdeck does not rewrite what it cannot read
		}
		ok, err := casDelete(ctx, b.store, qm.Key, qm.Versionstamp)
		if err != nil {
			return nil, b.restore(ctx, c, claimed, now, err)
		}
		if ok {
			claimed = append(claimed, qm)
		}
	}
	if len(claimed) == 0 {
		return nil, nil
	}
	batch := &Batch{Queue: c.queue, Messages: make([]*Message, len(claimed))}
	for i, qm := range claimed {
		batch.Messages[i] = &Message{Queue: c.queue, ID: qm.ID, Body: qm.Body, Attempts: qm.Attempts + 1, Timestamp: now}
	}
	if c.handler != nil {
		_ = c.handler(ctx, batch) // a failing handler only means "no decision" for the rest
	}
	return b.settle(ctx, c, claimed, batch, now)
}

// settle writes the redeliveries (or drops) after the handler. The writes
// use a context that outlives ctx: a claimed message not written back is lost.
func (b *Broker) settle(ctx context.Context, c consumer, claimed []QueuedMessage, batch *Batch, now int64) ([]Delivery, error) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restoreTimeout)
	defer cancel()
	out := make([]Delivery, len(claimed))
	var errs []error
	for i, qm := range claimed {
		decision, delay := batch.Messages[i].verdict()
		d := Delivery{Queue: c.queue, ID: qm.ID, Body: qm.Body, Attempts: qm.Attempts + 1, Decision: decision, Outcome: OutcomeAcked}
		if decision != DecisionAck {
			var err error
			d.Outcome, d.NextDueAt, err = b.requeue(wctx, c, qm, delay, now)
			errs = append(errs, err)
		}
		out[i] = d
	}
	return out, errors.Join(errs...)
}

// restore requeues messages claimed before a store error, as undecided.
func (b *Broker) restore(ctx context.Context, c consumer, claimed []QueuedMessage, now int64, cause error) error {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restoreTimeout)
	defer cancel()
	errs := []error{fmt.Errorf("poll %s: %w", c.queue, cause)}
	for _, qm := range claimed {
		_, _, err := b.requeue(wctx, c, qm, nil, now)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// requeue writes the message again with attempts+1, due after its retry
// delay or the backoff, or drops it when attempts+1 reaches MaxAttempts.
func (b *Broker) requeue(ctx context.Context, c consumer, qm QueuedMessage, delay *time.Duration, now int64) (DeliveryOutcome, int64, error) {
	attempts := qm.Attempts + 1
	if attempts >= c.opts.MaxAttempts {
		if !c.opts.DeadLetter {
			return OutcomeDropped, 0, nil
		}
		value := []byte(`{"body":` + string(qm.Body) + `,"attempts":` + strconv.Itoa(attempts) + `,"droppedAt":` + strconv.FormatInt(now, 10) + `}`)
		if _, err := b.store.Set(ctx, DeadLetterKey(c.queue, qm.ID), value, nil); err != nil {
			return OutcomeDropped, 0, fmt.Errorf("dead-letter %s/%s: %w", c.queue, qm.ID, err)
		}
		return OutcomeDropped, 0, nil
	}
	wait := Backoff(c.opts.BaseRetryDelay, attempts)
	if delay != nil {
		wait = *delay
	}
	due := now + wait.Milliseconds()
	return OutcomeRequeued, due, enqueue(ctx, b.store, c.queue, messageRecord{Body: qm.Body, Attempts: attempts}, due, qm.ID)
}
