package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/store/coord"
)

// QueueCmd groups the queue library (store/coord).
type QueueCmd struct {
	List  QueueListCmd  `cmd:"" help:"Without NAME, one line per queue (ready vs delayed depth, oldest ready, attempts); with NAME, one line per message."`
	Send  QueueSendCmd  `cmd:"" help:"Enqueue a JSON message on NAME (attempts 0, a new id)."`
	Poll  QueuePollCmd  `cmd:"" help:"Act as the consumer of NAME for one poll: claim the due messages and ack, retry or nack each one."`
	Purge QueuePurgeCmd `cmd:"" help:"Delete every message of NAME, due or not."`
}

// queueJSON is one line of queue list without NAME.
type queueJSON struct {
	Queue            string               `json:"queue"`
	Ready            int                  `json:"ready"`
	Delayed          int                  `json:"delayed"`
	OldestReadyAgeMs *int64               `json:"oldestReadyAgeMs"`
	Attempts         []coord.AttemptCount `json:"attempts"`
	Final            int                  `json:"final"`
	Malformed        int                  `json:"malformed"`
}

// messageJSON is one line of queue list NAME, and of send and poll.
type messageJSON struct {
	Queue        string          `json:"queue"`
	ID           string          `json:"id"`
	Key          *codec.Key      `json:"key,omitempty"`
	DueAt        *int64          `json:"dueAt,omitempty"`
	Body         json.RawMessage `json:"body,omitempty"`
	Attempts     *int            `json:"attempts,omitempty"`
	Versionstamp string          `json:"versionstamp,omitempty"`
	Ready        *bool           `json:"ready,omitempty"`
	Final        *bool           `json:"final,omitempty"`
	Decision     string          `json:"decision,omitempty"`
}

// QueueListCmd reports queues.
type QueueListCmd struct {
	Name        string `arg:"" optional:"" name:"name" help:"List the messages of this queue."`
	MaxAttempts int    `name:"max-attempts" placeholder:"N" default:"5" help:"The consumers' maxAttempts, which decides the final attempt."`
}

// Run prints the queue summaries, or the messages of NAME in due order.
func (c *QueueListCmd) Run(app *App) error {
	if c.MaxAttempts <= 0 {
		return fmt.Errorf("--max-attempts %d: must be positive", c.MaxAttempts)
	}
	s, err := app.Open(app.Context(), Opening{})
	if err != nil {
		return err
	}
	now := app.Now()
	qs, _, err := coord.InspectQueues(app.Context(), s, c.Name, now, c.MaxAttempts)
	if err != nil {
		return err
	}
	if c.Name == "" {
		for _, q := range qs {
			printQueue(app, q)
		}
		if len(qs) == 0 && !app.Out.JSON() {
			app.Out.Textf("no queues")
		}
		return nil
	}
	for _, q := range qs {
		for _, m := range q.Messages {
			printMessage(app, q.Name, m, now)
		}
		if total := q.Ready + q.Delayed; total > len(q.Messages) {
			app.Warnf("%s holds %d messages; showing the first %d in due order", usertext.Sanitize(q.Name), total, len(q.Messages))
		}
	}
	return nil
}

func printQueue(app *App, q coord.QueueReport) {
	j := queueJSON{Queue: q.Name, Ready: q.Ready, Delayed: q.Delayed, Attempts: q.Attempts, Final: q.Final, Malformed: q.Malformed}
	var hist []string
	for _, a := range q.Attempts {
		hist = append(hist, fmt.Sprintf("%d:%d", a.Attempts, a.Count))
	}
	text := fmt.Sprintf("%s  ready=%d  delayed=%d", usertext.Sanitize(q.Name), q.Ready, q.Delayed)
	if q.Ready > 0 {
		j.OldestReadyAgeMs = &q.OldestReadyAgeMs
		text += "  oldest-ready=" + millis(q.OldestReadyAgeMs)
	}
	text += "  attempts=" + strings.Join(hist, ",") + fmt.Sprintf("  final=%d", q.Final)
	if q.Malformed > 0 {
		text += fmt.Sprintf("  malformed=%d", q.Malformed)
	}
	app.Out.Result(j, text)
}

// printMessage prints a message line of `queue list NAME`; its due time has
// a fixed width, so the lines' columns stay put.
func printMessage(app *App, queue string, m coord.QueueMessage, now int64) {
	k := m.Key
	j := messageJSON{Queue: queue, ID: m.ID, Key: &k, DueAt: &m.DueAt, Body: m.Body, Attempts: &m.Attempts,
		Versionstamp: m.Versionstamp, Ready: &m.Ready, Final: &m.Final}
	when := "ready"
	if !m.Ready {
		when = "in " + millis(m.DueAt-now)
	}
	text := fmt.Sprintf("%s  %s  due=%s (%s)  attempts=%d", usertext.Sanitize(queue), usertext.Sanitize(m.ID), timeText(m.DueAt), when, m.Attempts)
	if m.Final {
		text += "  final-attempt"
	}
	body, _ := jsonValue(m.Body)
	app.Out.Result(j, text+"  body="+shortValue(string(body)))
}

// QueueSendCmd enqueues a message.
type QueueSendCmd struct {
	Name  string `arg:"" name:"name" help:"The queue."`
	Body  string `arg:"" name:"json" help:"The message body as JSON; - reads it from stdin."`
	Delay string `name:"delay" placeholder:"DURATION" default:"0s" help:"Deliver no sooner than this long after now."`
}

// Writes names the write for the read-only refusal (writer).
func (c *QueueSendCmd) Writes() string { return "queue send" }

// Run sends the message and prints its id and due time.
func (c *QueueSendCmd) Run(app *App) error {
	raw := []byte(c.Body)
	if c.Body == "-" {
		var err error
		if raw, err = io.ReadAll(app.Stdin); err != nil {
			return fmt.Errorf("read the body from stdin: %w", err)
		}
	}
	body, err := ParseValue("JSON", raw)
	if err != nil {
		return err
	}
	delay, err := positiveDuration("--delay", c.Delay, true)
	if err != nil {
		return err
	}
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MayCreate})
	if err != nil {
		return err
	}
	return app.Pinned(func(now int64) error {
		id, err := coord.Send(app.Context(), s, c.Name, body, delay)
		if err != nil {
			return err
		}
		due := now + delay.Milliseconds()
		app.Out.Result(messageJSON{Queue: c.Name, ID: id, DueAt: &due}, fmt.Sprintf("sent %s  %s  due=%s", usertext.Sanitize(c.Name), id, timeText(due)))
		return nil
	})
}

// QueuePollCmd consumes one batch.
type QueuePollCmd struct {
	Name        string `arg:"" name:"name" help:"The queue."`
	Ack         bool   `name:"ack" xor:"decision" help:"Ack every delivered message (consume it)."`
	Retry       string `name:"retry" xor:"decision" placeholder:"DURATION" help:"Ask for redelivery of every message this long after now."`
	Nack        bool   `name:"nack" xor:"decision" help:"Decide nothing: every message is redelivered with backoff, or dropped on its final attempt."`
	Max         int    `name:"max" placeholder:"N" default:"10" help:"At most this many messages (the consumer's maxBatchSize)."`
	MaxAttempts int    `name:"max-attempts" placeholder:"N" default:"5" help:"Drop a message instead of requeueing it when its attempts reach this."`
	DeadLetter  bool   `name:"dead-letter" help:"Keep dropped messages under [\"kvdeck_dead_letter\", NAME, id] (services never do)."`
}

// Writes names the write for the read-only refusal (writer).
func (c *QueuePollCmd) Writes() string { return "queue poll" }

// Run polls once at the virtual now and prints one line per delivered
// message: {"queue","id","body","attempts","decision"}.
func (c *QueuePollCmd) Run(app *App) error {
	if !c.Ack && !c.Nack && c.Retry == "" {
		return fmt.Errorf("say what to do with the messages: --ack, --retry DURATION or --nack")
	}
	if c.Max <= 0 || c.MaxAttempts <= 0 {
		return fmt.Errorf("--max and --max-attempts must be positive")
	}
	var retry time.Duration
	if c.Retry != "" {
		var err error
		if retry, err = positiveDuration("--retry", c.Retry, true); err != nil {
			return err
		}
	}
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MustExist})
	if err != nil {
		return err
	}
	b := coord.NewBroker(s)
	b.Consume(c.Name, func(_ context.Context, batch *coord.Batch) error {
		for _, m := range batch.Messages {
			switch {
			case c.Ack:
				m.Ack()
			case c.Retry != "":
				m.RetryAfter(retry)
			}
		}
		return nil
	}, coord.ConsumerOptions{MaxBatchSize: c.Max, MaxAttempts: c.MaxAttempts, DeadLetter: c.DeadLetter})
	delivered, err := b.PollQueue(app.Context(), c.Name, app.Now())
	for _, d := range delivered {
		attempts := d.Attempts
		text := fmt.Sprintf("%s  %s  attempts=%d  %s", usertext.Sanitize(d.Queue), usertext.Sanitize(d.ID), d.Attempts, d.Decision)
		switch d.Outcome {
		case coord.OutcomeRequeued:
			text += "  requeued due=" + timeText(d.NextDueAt)
		case coord.OutcomeDropped:
			text += "  dropped (max attempts)"
		case coord.OutcomeAcked:
		}
		body, _ := jsonValue(d.Body)
		app.Out.Result(messageJSON{Queue: d.Queue, ID: d.ID, Body: d.Body, Attempts: &attempts, Decision: string(d.Decision)},
			text+"  body="+shortValue(string(body)))
	}
	return err
}

// QueuePurgeCmd empties a queue.
type QueuePurgeCmd struct {
	Name string `arg:"" name:"name" help:"The queue."`
}

// queuePurgeJSON is the result line of queue purge.
type queuePurgeJSON struct {
	Queue  string `json:"queue"`
	Purged int    `json:"purged"`
}

// Writes names the write for the read-only refusal (writer).
func (c *QueuePurgeCmd) Writes() string { return "queue purge" }

// Run deletes the queue's messages and prints how many went.
func (c *QueuePurgeCmd) Run(app *App) error {
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MustExist})
	if err != nil {
		return err
	}
	n, err := coord.Purge(app.Context(), s, c.Name)
	app.Out.Result(queuePurgeJSON{Queue: c.Name, Purged: n}, fmt.Sprintf("purged %s: %d message(s)", usertext.Sanitize(c.Name), n))
	return err
}
