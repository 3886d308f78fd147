package coord

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"kvdeck/codec"
	"kvdeck/store"
)

// QueueMessage is one message as the Queues view shows it.
type QueueMessage struct {
	Key          codec.Key
	Versionstamp string
	ID           string
	DueAt        int64
	Body         json.RawMessage
	// Attempts is the stored count; the next delivery is Attempts+1.
	Attempts int
	// Ready is DueAt <= now.
	Ready bool
	// Final: if the next delivery is not acked, the message is dropped
	// (Attempts+1 >= maxAttempts).
	Final bool
}

// AttemptCount is one bar of the attempts histogram.
type AttemptCount struct {
	Attempts int
	Count    int
}

// QueueReport is one queue at now.
type QueueReport struct {
	Name string
	// Ready messages are due (DueAt <= now); Delayed ones are not yet.
	Ready, Delayed int
	// OldestReadyAgeMs is now - DueAt of the oldest ready message.
	OldestReadyAgeMs int64
	// Attempts is the histogram of stored attempts, ascending.
	Attempts []AttemptCount
	// Final counts messages on their final attempt.
	Final int
	// Malformed counts rows that do not parse (the broker skips them).
	Malformed int
	// Messages are the first MaxQueueSample messages in due order.
	Messages []QueueMessage
}

// MaxQueueSample bounds QueueReport.Messages; the counts cover every
// message.
const MaxQueueSample = 200

// queueCollector gathers the live dwk_queue_due rows, in key order.
type queueCollector struct {
	now, maxAttempts int64
	queues           []*queueState
	findings         []Finding
}

// queueState is one queue being collected.
type queueState struct {
	rep  QueueReport
	hist map[int]int
	// ready is the index in findings of the queue's ready summary, filled
	// in by finish once the count is known.
	ready int
}

func newQueueCollector(now int64, maxAttempts int) *queueCollector {
	if maxAttempts <= 0 {
		maxAttempts = DefaultMaxAttempts
	}
	return &queueCollector{now: now, maxAttempts: int64(maxAttempts)}
}

func (c *queueCollector) add(e store.Entry) {
	if !e.Live(c.now) {
		return
	}
	name, okName := keyString(e.Key, 1)
	qm, err := parseMessage(e)
	if err != nil {
		c.findings = append(c.findings, Finding{Severity: SeverityWarning, Code: "queue.malformed", Key: e.Key, Message: "unexpected queue row (the broker skips it): " + err.Error()})
	}
	if !okName {
		return
	}
	if n := len(c.queues); n == 0 || c.queues[n-1].rep.Name != name {
		c.queues = append(c.queues, &queueState{rep: QueueReport{Name: name}, hist: map[int]int{}, ready: -1})
	}
	st := c.queues[len(c.queues)-1]
	q := &st.rep
	if err != nil {
		q.Malformed++
		return
	}
	m := QueueMessage{Key: qm.Key, Versionstamp: qm.Versionstamp, ID: qm.ID, DueAt: qm.DueAt, Body: qm.Body, Attempts: qm.Attempts,
		Ready: qm.DueAt <= c.now, Final: int64(qm.Attempts)+1 >= c.maxAttempts}
	if m.Ready {
		if q.Ready == 0 {
			q.OldestReadyAgeMs = c.now - m.DueAt
			st.ready = len(c.findings)
			c.findings = append(c.findings, Finding{Code: "queue.ready", Key: m.Key})
		}
		q.Ready++
	} else {
		q.Delayed++
	}
	st.hist[m.Attempts]++
	if m.Final {
		q.Final++
	}
	c.messageFindings(name, m)
	if len(q.Messages) < MaxQueueSample {
		q.Messages = append(q.Messages, m)
	}
}

// messageFindings reports a message that failed before.
func (c *queueCollector) messageFindings(queue string, m QueueMessage) {
	switch {
	case m.Final:
		c.findings = append(c.findings, Finding{Severity: SeverityWarning, Code: "queue.final-attempt", Key: m.Key,
			Message: fmt.Sprintf("%s/%s: its next delivery is its last (attempt %d of %d); if it is not acked it is dropped without trace", queue, m.ID, m.Attempts+1, c.maxAttempts)})
	case m.Attempts > 0:
		c.findings = append(c.findings, Finding{Severity: SeverityInfo, Code: "queue.redelivered", Key: m.Key,
			Message: fmt.Sprintf("%s/%s was delivered %d time(s) without an ack; its next delivery is attempt %d of %d", queue, m.ID, m.Attempts, m.Attempts+1, c.maxAttempts)})
	}
}

// finish writes the histograms and the ready summaries.
func (c *queueCollector) finish() ([]QueueReport, []Finding) {
	out := make([]QueueReport, len(c.queues))
	for i, st := range c.queues {
		q := &st.rep
		for a, n := range st.hist {
			q.Attempts = append(q.Attempts, AttemptCount{Attempts: a, Count: n})
		}
		slices.SortFunc(q.Attempts, func(x, y AttemptCount) int { return x.Attempts - y.Attempts })
		if st.ready >= 0 {
			f := &c.findings[st.ready]
			f.Severity = lateness(q.OldestReadyAgeMs)
			f.Message = fmt.Sprintf("%s: %d message(s) ready, the oldest waiting %s: no consumer has polled them yet", q.Name, q.Ready, span(q.OldestReadyAgeMs))
		}
		out[i] = *q
	}
	return out, c.findings
}

// InspectQueues reports queue name (every queue when empty) at now; a
// message is on its final attempt when its stored attempts+1 >=
// maxAttempts (DefaultMaxAttempts when zero), the broker's drop rule.
func InspectQueues(ctx context.Context, s *store.Store, name string, now int64, maxAttempts int) ([]QueueReport, []Finding, error) {
	c := newQueueCollector(now, maxAttempts)
	if err := scanInto(ctx, s, prefix(PrefixQueueDue, name), c.add); err != nil {
		return nil, nil, err
	}
	qs, fs := c.finish()
	return qs, fs, nil
}
