package coord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"kvdeck/codec"
	"kvdeck/store"
)

// PulseRowBound is how many rows Pulse counts at most (rows, expired
// rows, invalid JSON): past it the counts are lower bounds (Pulse.Capped).
const PulseRowBound = 100_000

// Pulse is a store's coordination health in one statement (one request
// over a server), for a fleet's rows: what Inspect reports, cut to the
// counts a statement can take without reading rows into Go. Counts are
// over live rows unless said otherwise.
type Pulse struct {
	// Seq is kv_meta's seq (nil when row 0 is missing).
	Seq *int64
	// Rows counts the store's rows, expired ones included, up to the
	// bound; Capped says the bound was hit: Rows, Expired and InvalidJSON
	// are then counted over the first PulseRowBound rows only (lower
	// bounds).
	Rows   int64
	Capped bool
	// Expired counts expired rows not swept (store-wide, bounded).
	Expired int64
	// InvalidJSON counts rows whose value is not valid JSON (bounded).
	InvalidJSON int64
	// Leases (dwk_lease): held (live, more than ExpiringShare of
	// DefaultLeaseTTL left or no expiry), expiring, expired-unswept, and
	// those without expiry (doctor's lease.no-expiry, an error).
	LeasesHeld, LeasesExpiring, LeasesExpired, LeasesNoExpiry int
	// AlarmsOverdue counts due entries (dwk_alarm_due) at or before now;
	// WorstLatenessMs is the oldest one's lateness (0 when none).
	AlarmsOverdue   int
	WorstLatenessMs int64
	// Queues (dwk_queue_due), summed over every queue: ready and delayed
	// messages, the oldest ready one's age, messages on their final
	// attempt (DefaultMaxAttempts), and how many queues have ready ones.
	QueueReady, QueueDelayed, QueueFinal, QueuesWithReady int
	OldestReadyMs                                         int64
	// Findings is how many findings Doctor would report of the codes a
	// statement can see (alarm.overdue, alarm.retried, alarm.poison,
	// queue.ready, queue.final-attempt, queue.redelivered, lease.no-expiry,
	// meta.probe-leftover, meta.mode, store.expired-unswept,
	// store.invalid-json), capped
	// per code as Doctor caps them; FindingErrors those of severity error.
	// Doctor sees more (orphans, duplicates, malformed records, cron,
	// long-held leases, undecodable keys, stamps above seq):
	// kvdeck doctor or fleet doctor lists them all.
	Findings, FindingErrors int
	// The other counts behind Findings: alarms retried and poison (due
	// entries), messages redelivered (not final), leftover probes, a mode
	// marker other than "central".
	alarmsRetried, alarmsPoison, redelivered, probes, modeOff int
}

// pulseSQL is Pulse's statement. Parameters: ?1 now, ?2 the row bound,
// ?3 the end of the expiring window, ?4 the final attempt's stored
// attempts, ?5 now as an encoded number key part, ?6 to ?11 the lease,
// alarm-due and queue prefixes' bounds, ?12 the queue prefix's length,
// ?13 PoisonRetryCount, ?14 and ?15 the probes' bounds, ?16 the mode
// marker's key, ?17 and ?18 the meta prefix's bounds. Every area's
// figures travel as one JSON array. A queue message's due time is read
// from its key as the encoded number part after the queue's name (a name
// with an escaped 0x00 is misread: the cheap subset).
const pulseSQL = `SELECT
 (SELECT seq FROM kv_meta WHERE id = 0),
 (SELECT json_array(count(*), count(*) FILTER (WHERE typeof(e) = 'integer' AND e <= ?1), count(*) FILTER (WHERE NOT json_valid(v)))
  FROM (SELECT expires_at AS e, v FROM kv LIMIT ?2)),
 (SELECT json_array(
   count(*) FILTER (WHERE expires_at IS NULL OR expires_at > ?3),
   count(*) FILTER (WHERE expires_at > ?1 AND expires_at <= ?3),
   count(*) FILTER (WHERE expires_at <= ?1),
   count(*) FILTER (WHERE expires_at IS NULL))
  FROM kv WHERE k > ?6 AND k < ?7),
 (SELECT json_array(count(*) FILTER (WHERE d <= ?1), coalesce(?1 - min(d) FILTER (WHERE d <= ?1), 0),
   count(*) FILTER (WHERE r > 0 AND r < ?13), count(*) FILTER (WHERE r >= ?13)) FROM
  (SELECT CASE WHEN json_valid(v) THEN json_extract(v, '$.epochMs') END AS d,
   CASE WHEN json_valid(v) THEN json_extract(v, '$.retryCount') END AS r FROM kv
   WHERE k > ?8 AND k < ?9 AND (expires_at IS NULL OR expires_at > ?1))),
 (SELECT json_array(
   count(*) FILTER (WHERE due <= ?5), count(*) FILTER (WHERE due > ?5),
   coalesce(hex(min(due) FILTER (WHERE due <= ?5)), ''),
   count(*) FILTER (WHERE att >= ?4),
   count(DISTINCT q) FILTER (WHERE due <= ?5),
   count(*) FILTER (WHERE att > 0 AND att < ?4))
  FROM (` + pulseQueueRows + `)),
 (SELECT json_array(count(*) FILTER (WHERE k > ?14 AND k < ?15), count(*) FILTER (WHERE k = ?16 AND v IS NOT '"central"'))
  FROM kv WHERE k > ?17 AND k < ?18 AND (expires_at IS NULL OR expires_at > ?1))`

// ReadPulse reads s's coordination health at now in one statement. On a
// store opened with store.Options.Unchecked it is also the schema check:
// a database without the store's tables fails with store.ErrNotStore.
// s must be open read-only (store.Store.ProbeRow).
func ReadPulse(ctx context.Context, s *store.Store, now int64) (Pulse, error) {
	p, _, err := readPulse(ctx, s, now, PulseRowBound, false)
	return p, err
}

// readPulse is ReadPulse counting at most bound rows, and each queue's
// figures when perQueue (still one statement).
func readPulse(ctx context.Context, s *store.Store, now int64, bound int64, perQueue bool) (Pulse, []QueuePulse, error) {
	nowPart, err := codec.EncodePart(codec.Number(float64(now)))
	if err != nil {
		return Pulse{}, nil, fmt.Errorf("pulse: %w", err)
	}
	args := []any{now, bound, now + int64(ExpiringShare*float64(DefaultLeaseTTL.Milliseconds())),
		DefaultMaxAttempts - 1, nowPart}
	var queueLen int
	for _, p := range []string{PrefixLease, PrefixAlarmDue, PrefixQueueDue} {
		lo, err := codec.Encode(codec.Key{codec.String(p)})
		if err != nil {
			return Pulse{}, nil, fmt.Errorf("pulse: %w", err)
		}
		args = append(args, lo, append(append([]byte{}, lo...), 0xFF))
		queueLen = len(lo)
	}
	args = append(args, queueLen, PoisonRetryCount)
	probe, err1 := codec.Encode(codec.Key{codec.String(PrefixMeta), codec.String("probe")})
	mode, err2 := codec.Encode(ModeKey())
	meta, err3 := codec.Encode(codec.Key{codec.String(PrefixMeta)})
	if err := errors.Join(err1, err2, err3); err != nil {
		return Pulse{}, nil, fmt.Errorf("pulse: %w", err)
	}
	args = append(args, probe, append(append([]byte{}, probe...), 0xFF), mode, meta, append(append([]byte{}, meta...), 0xFF))
	var seq *int64
	var all, leases, alarms, queues, metas, eachQueue string
	q, dest := pulseSQL, []any{&seq, &all, &leases, &alarms, &queues, &metas}
	if perQueue {
		q, dest = q+pulseQueuesColumn, append(dest, &eachQueue)
	}
	if _, err := s.ProbeRow(ctx, q, args, dest...); err != nil {
		return Pulse{}, nil, fmt.Errorf("pulse: %w", err)
	}
	p := Pulse{Seq: seq}
	if err := p.fill([]string{all, leases, alarms, queues, metas}, now, bound); err != nil {
		return Pulse{}, nil, fmt.Errorf("pulse: %w", err)
	}
	if !perQueue {
		return p, nil, nil
	}
	byQueue, err := parseQueues(eachQueue, now)
	if err != nil {
		return Pulse{}, nil, fmt.Errorf("pulse: %w", err)
	}
	return p, byQueue, nil
}

// fill reads the statement's JSON arrays and counts the findings.
func (p *Pulse) fill(texts []string, now, bound int64) error {
	var a, l, al, mt [4]int64
	var q [6]any
	for i, into := range []any{&a, &l, &al, &q, &mt} {
		if err := json.Unmarshal([]byte(texts[i]), into); err != nil {
			return fmt.Errorf("an unexpected answer %q: %w", texts[i], err)
		}
	}
	p.Rows, p.Expired, p.InvalidJSON, p.Capped = a[0], a[1], a[2], a[0] >= bound
	p.LeasesHeld, p.LeasesExpiring, p.LeasesExpired, p.LeasesNoExpiry = int(l[0]), int(l[1]), int(l[2]), int(l[3])
	p.AlarmsOverdue, p.WorstLatenessMs, p.alarmsRetried, p.alarmsPoison = int(al[0]), al[1], int(al[2]), int(al[3])
	p.probes, p.modeOff = int(mt[0]), int(mt[1])
	p.QueueReady, p.QueueDelayed = jsonInt(q[0]), jsonInt(q[1])
	p.QueueFinal, p.QueuesWithReady, p.redelivered = jsonInt(q[3]), jsonInt(q[4]), jsonInt(q[5])
	var err error
	if h, _ := q[2].(string); h != "" {
		if p.OldestReadyMs, err = dueAge(h, now); err != nil {
			return err
		}
	}
	p.count()
	return nil
}

// jsonInt is a JSON number as an int (0 for anything else).
func jsonInt(v any) int {
	f, _ := v.(float64)
	return int(f)
}

// count fills Findings and FindingErrors as Doctor would count those codes.
func (p *Pulse) count() {
	capped := func(n int) int {
		if n > MaxFindingsPerCode {
			return MaxFindingsPerCode + 1
		}
		return n
	}
	p.FindingErrors = capped(p.LeasesNoExpiry)
	p.Findings = p.FindingErrors + capped(p.AlarmsOverdue) + capped(p.alarmsRetried) + capped(p.alarmsPoison) +
		capped(p.QueuesWithReady) + capped(p.QueueFinal) + capped(p.redelivered) + capped(p.probes) + p.modeOff
	if p.Expired > 0 {
		p.Findings++
	}
	if p.InvalidJSON > 0 {
		p.Findings++
	}
}
