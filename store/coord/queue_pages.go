package coord

import (
	"context"
	"fmt"

	"kvdeck/store"
)

// QueuePage is one page of a queue's messages in key (due) order: each
// with its key, stamp and value as read, for marking every message of a
// queue (the Queues view's ctrl+a twice).
type QueuePage struct {
	Messages []QueueMessage
	// Malformed counts the rows of the page that do not parse (left out).
	Malformed int
	// Cursor continues the listing; "" when the queue is read to its end.
	Cursor string
}

// The default bounds of one QueuePage: 1,000 rows and 1 MiB of keys and
// values (as estimated for a server's answer), so that each page is one
// short request and the reader can stop between them.
const (
	QueuePageRows        = 1000
	QueuePageBytes int64 = 1 << 20
)

// QueueMessagesPage reads one page of queue's live messages after cursor
// ("" from the start), at most rows rows and about maxBytes (zero: the
// defaults); now decides Ready.
func QueueMessagesPage(ctx context.Context, s *store.Store, queue, cursor string, rows int, maxBytes int64, now int64) (QueuePage, error) {
	if queue == "" {
		return QueuePage{}, fmt.Errorf("%w: a queue name is needed", ErrInvalidArgument)
	}
	if rows <= 0 {
		rows = QueuePageRows
	}
	if maxBytes <= 0 {
		maxBytes = QueuePageBytes
	}
	page, err := s.List(ctx, store.ListOptions{Prefix: prefix(PrefixQueueDue, queue), Cursor: cursor, Limit: rows, MaxBytes: maxBytes})
	if err != nil {
		return QueuePage{}, fmt.Errorf("read queue %s: %w", queue, err)
	}
	out := QueuePage{Cursor: page.Cursor}
	for _, e := range page.Entries {
		qm, err := parseMessage(e)
		if err != nil {
			out.Malformed++
			continue
		}
		out.Messages = append(out.Messages, QueueMessage{Key: qm.Key, Versionstamp: qm.Versionstamp, ID: qm.ID, DueAt: qm.DueAt,
			Body: qm.Body, Attempts: qm.Attempts, Ready: qm.DueAt <= now})
	}
	return out, nil
}
