package coord

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"

	"kvdeck/codec"
	"kvdeck/store"
)

// QueuePulse is one queue's figures in a pulse (ReadPulseQueues): its
// ready and delayed messages, those on their final attempt, and the
// oldest ready one's age (0 when none is ready).
type QueuePulse struct {
	// Name is the queue's name (the hex of its key part when that does
	// not decode).
	Name           string
	Ready, Delayed int
	Final          int
	OldestReadyMs  int64
}

// ReadPulseQueues is ReadPulse with each queue's figures (in the order
// of their keys), in the same one statement: the queue entries are
// grouped by queue in one more column. For a scrape that labels its
// figures by queue (kvdeck exporter).
func ReadPulseQueues(ctx context.Context, s *store.Store, now int64) (Pulse, []QueuePulse, error) {
	return readPulse(ctx, s, now, PulseWindows, PulseWindowRows, true)
}

// pulseQueueRows are the live queue entries as (q, due, att): the
// encoded key up to the queue's name (its end included), the encoded due
// time, and the stored attempts. Parameters as pulseSQL's.
const pulseQueueRows = `SELECT substr(k, 1, ?12 + 1 + instr(substr(k, ?12 + 2), x'00')) AS q,
   substr(k, ?12 + 2 + instr(substr(k, ?12 + 2), x'00'), 9) AS due,
   CASE WHEN json_valid(v) THEN json_extract(v, '$.attempts') END AS att
   FROM kv WHERE k > ?10 AND k < ?11 AND (expires_at IS NULL OR expires_at > ?1)`

// pulseQueuesColumn is the column ReadPulseQueues adds to pulseSQL: per
// queue (hex of q), ready, delayed, final-attempt counts and the oldest
// ready due time (hex, ” when none), as one JSON array.
const pulseQueuesColumn = `,
 (SELECT json_group_array(json_array(hex(q), r, d, f, o)) FROM
  (SELECT q, count(*) FILTER (WHERE due <= ?5) AS r, count(*) FILTER (WHERE due > ?5) AS d,
    count(*) FILTER (WHERE att >= ?4) AS f, coalesce(hex(min(due) FILTER (WHERE due <= ?5)), '') AS o
   FROM (` + pulseQueueRows + `) GROUP BY q ORDER BY q))`

// parseQueues reads pulseQueuesColumn's array.
func parseQueues(text string, now int64) ([]QueuePulse, error) {
	var rows [][5]any
	if err := json.Unmarshal([]byte(text), &rows); err != nil {
		return nil, fmt.Errorf("an unexpected answer %q: %w", text, err)
	}
	out := make([]QueuePulse, 0, len(rows))
	for _, r := range rows {
		q := QueuePulse{Ready: jsonInt(r[1]), Delayed: jsonInt(r[2]), Final: jsonInt(r[3])}
		name, _ := r[0].(string)
		if raw, err := hex.DecodeString(name); err == nil {
			q.Name = name
			if k, err := codec.Decode(raw); err == nil && len(k) == 2 && k[1].Kind() == codec.KindString {
				q.Name = k[1].StringValue()
			}
		}
		if due, _ := r[4].(string); due != "" {
			var err error
			if q.OldestReadyMs, err = dueAge(due, now); err != nil {
				return nil, err
			}
		}
		out = append(out, q)
	}
	return out, nil
}

// dueAge is how long before now the due time in hexText (the hex of an
// encoded number key part) was: 0 when it is no number.
func dueAge(hexText string, now int64) (int64, error) {
	raw, err := hex.DecodeString(hexText)
	if err != nil {
		return 0, fmt.Errorf("a due time %q: %w", hexText, err)
	}
	if k, err := codec.Decode(raw); err == nil && len(k) == 1 && k[0].Kind() == codec.KindNumber {
		if due := k[0].NumberValue(); !math.IsNaN(due) {
			return now - int64(due), nil
		}
	}
	return 0, nil
}
