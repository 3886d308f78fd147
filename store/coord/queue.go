package coord

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
)

// SendRequest is one message of SendBatch.
type SendRequest struct {
	// Body is the message as JSON text.
	Body []byte
	// Delay, when not nil, overrides the batch's default delay.
	Delay *time.Duration
}

// Send enqueues one message on queue: {"body": body, "attempts": 0} at
// ["dwk_queue_due", queue, now + delay, id] with a new random id, by one
// unconditional set (now is the store's clock). It returns the id.
func Send(ctx context.Context, s *store.Store, queue string, body []byte, delay time.Duration) (string, error) {
	ids, err := SendBatch(ctx, s, queue, []SendRequest{{Body: body}}, delay)
	if len(ids) == 0 {
		return "", err
	}
	return ids[0], err
}

// SendBatch enqueues msgs in order, each like Send with its own set (and so
// its own versionstamp, as the reference writes them). A message's own
// Delay overrides defaultDelay. Bodies are all checked before anything is
// written; on a store error the ids of the messages already sent are
// returned with it.
func SendBatch(ctx context.Context, s *store.Store, queue string, msgs []SendRequest, defaultDelay time.Duration) ([]string, error) {
	bodies := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		b, err := checkBody(m.Body)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		bodies[i] = b
	}
	ids := make([]string, 0, len(msgs))
	for i, m := range msgs {
		delay := defaultDelay
		if m.Delay != nil {
			delay = *m.Delay
		}
		id := NewUUID()
		if err := enqueue(ctx, s, queue, messageRecord{Body: bodies[i]}, s.Now()+delay.Milliseconds(), id); err != nil {
			return ids, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// enqueue writes one message row with a plain set.
func enqueue(ctx context.Context, s *store.Store, queue string, m messageRecord, dueAt int64, id string) error {
	if err := checkSafe("due time", dueAt); err != nil {
		return err
	}
	if _, err := s.Set(ctx, QueueKey(queue, dueAt, id), m.encode(), nil); err != nil {
		return fmt.Errorf("enqueue on %s: %w", queue, err)
	}
	return nil
}

// QueuedMessage is a parsed queue row.
type QueuedMessage struct {
	Key          codec.Key
	Versionstamp string
	Queue        string
	ID           string
	DueAt        int64
	Body         json.RawMessage
	// Attempts is the stored count: deliveries so far that were not acked.
	Attempts int
}

// parseMessage reads a queue row.
func parseMessage(e store.Entry) (QueuedMessage, error) {
	queue, okQueue := keyString(e.Key, 1)
	due, okDue := keyInt(e.Key, 2)
	id, okID := keyString(e.Key, 3)
	if len(e.Key) != 4 || !okQueue || !okDue || !okID {
		return QueuedMessage{}, fmt.Errorf("%w: a queue key is [%q, queue, dueAtMs, id]", ErrMalformed, PrefixQueueDue)
	}
	m, err := decodeMessage(e.Value)
	if err != nil {
		return QueuedMessage{}, err
	}
	return QueuedMessage{Key: e.Key, Versionstamp: e.Versionstamp(), Queue: queue, ID: id, DueAt: due, Body: m.Body, Attempts: m.Attempts}, nil
}

// dueRange is the listing of queue's messages due at now.
func dueRange(queue string, now int64, limit int) store.ListOptions {
	return store.ListOptions{
		Prefix: prefix(PrefixQueueDue, queue),
		End:    codec.Key{codec.String(PrefixQueueDue), codec.String(queue), codec.Number(float64(now + 1))},
		Limit:  limit,
	}
}

// Purge deletes every message of queue, due or not, in delete-only commits
// of up to purgeBatch rows, and returns how many it deleted. Rows whose key
// does not decode are left alone (they cannot be named in a delete).
func Purge(ctx context.Context, s *store.Store, queue string) (int, error) {
	if queue == "" {
		return 0, fmt.Errorf("%w: purge needs a queue name", ErrInvalidArgument)
	}
	n := 0
	opts := store.ListOptions{Prefix: prefix(PrefixQueueDue, queue), Limit: purgeBatch, IncludeExpired: true}
	for {
		page, err := s.List(ctx, opts)
		if err != nil {
			return n, fmt.Errorf("purge %s: %w", queue, err)
		}
		a, batch := s.Atomic(), 0
		for _, e := range page.Entries {
			if e.KeyErr == nil {
				a.Delete(e.Key)
				batch++
			}
		}
		if batch > 0 {
			if _, err := a.Commit(ctx); err != nil {
				return n, fmt.Errorf("purge %s: %w", queue, err)
			}
			n += batch
		}
		if page.Cursor == "" {
			return n, nil
		}
		opts.Cursor = page.Cursor
	}
}

// purgeBatch keeps each purge commit short.
const purgeBatch = 200
