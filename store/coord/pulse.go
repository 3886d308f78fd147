package coord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"kvdeck/codec"
	"kvdeck/store"
)

// The store-wide figures of a pulse (rows, expired rows, invalid JSON)
// are counted over a sample: PulseWindows windows of PulseWindowRows
// rowids each, spread evenly from the lowest rowid to the highest. On a
// store whose rowids span at most PulseWindows*PulseWindowRows the
// windows cover every row and the figures are exact; past it they are
// estimates (Pulse.Estimated), the sample's counts scaled by the rowids
// between two windows. Either way a pulse reads at most 4096 rows, a few
// milliseconds on a file of a million rows and short enough to read
// without locks beside a service committing every 10 ms; a count of
// every row took 60-500 ms there and held a lock meanwhile. Many narrow
// windows rather than a few wide ones: rows expired together were
// written together and sit in one run of rowids, which narrow windows
// sample at the finer grain.
const (
	PulseWindows    = 256
	PulseWindowRows = 16
)

// Pulse is a store's coordination health in one statement (one request
// over a server), for a fleet's rows: what Inspect reports, cut to the
// counts a statement can take without reading rows into Go. Counts are
// over live rows unless said otherwise.
type Pulse struct {
	// Seq is kv_meta's seq (nil when row 0 is missing).
	Seq *int64
	// Rows counts the store's rows, expired ones included; Expired the
	// expired rows not swept (store-wide); InvalidJSON the rows whose
	// value is not valid JSON. Exact unless Estimated: then estimated
	// from a sample of Sampled rows spread over the table (see
	// PulseWindows).
	Rows, Expired, InvalidJSON int64
	Estimated                  bool
	// Sampled is the rows the sample held; SampledExpired and
	// SampledInvalid the expired and invalid ones among them (what an
	// estimate rests on: EstimateText).
	Sampled, SampledExpired, SampledInvalid int64
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

// pulseSQL is Pulse's statement. Parameters: ?1 now, ?2 the rowids of a
// window (PulseWindowRows),
// ?3 the end of the expiring window, ?4 the final attempt's stored
// attempts, ?5 now as an encoded number key part, ?6 to ?11 the lease,
// alarm-due and queue prefixes' bounds, ?12 the queue prefix's length,
// ?13 PoisonRetryCount, ?14 and ?15 the probes' bounds, ?16 the mode
// marker's key, ?17 and ?18 the meta prefix's bounds, ?19 the windows of
// the sample (PulseWindows). The sample's windows start at the lowest
// rowid, a stride apart (at least a window, more when the rowids span
// more than the windows: then the fourth figure, the stride, scales the
// counts); each window is a range of rowids, read by the rowid's b-tree
// (CROSS JOIN keeps the windows the outer loop), and the lowest and
// highest rowids are two seeks (min and max in one SELECT would read
// every row). Every area's
// figures travel as one JSON array. A queue message's due time is read
// from its key as the encoded number part after the queue's name (a name
// with an escaped 0x00 is misread: the cheap subset).
const pulseSQL = `SELECT
 (SELECT seq FROM kv_meta WHERE id = 0),
 (SELECT json_array(count(*), count(*) FILTER (WHERE typeof(e) = 'integer' AND e <= ?1), count(*) FILTER (WHERE NOT json_valid(v)), coalesce(max(s), 0))
  FROM (WITH RECURSIVE b(lo, s) AS (SELECT (SELECT min(rowid) FROM kv), max(?2, ((SELECT max(rowid) FROM kv) - (SELECT min(rowid) FROM kv)) / ?19 + 1)),
   w(i, at, s) AS (SELECT 0, lo, s FROM b WHERE lo IS NOT NULL UNION ALL SELECT i + 1, at + s, s FROM w WHERE i + 1 < ?19)
   SELECT kv.expires_at AS e, kv.v AS v, w.s AS s FROM w CROSS JOIN kv ON kv.rowid >= w.at AND kv.rowid < w.at + ?2)),
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
	p, _, err := readPulse(ctx, s, now, PulseWindows, PulseWindowRows, false)
	return p, err
}

// readPulse is ReadPulse sampling windows windows of width rowids, and
// each queue's figures when perQueue (still one statement).
func readPulse(ctx context.Context, s *store.Store, now int64, windows, width int64, perQueue bool) (Pulse, []QueuePulse, error) {
	nowPart, err := codec.EncodePart(codec.Number(float64(now)))
	if err != nil {
		return Pulse{}, nil, fmt.Errorf("pulse: %w", err)
	}
	args := []any{now, width, now + int64(ExpiringShare*float64(DefaultLeaseTTL.Milliseconds())),
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
	args = append(args, probe, append(append([]byte{}, probe...), 0xFF), mode, meta, append(append([]byte{}, meta...), 0xFF), windows)
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
	if err := p.fill([]string{all, leases, alarms, queues, metas}, now, width); err != nil {
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

// fill reads the statement's JSON arrays (width: the rowids of a
// sample's window) and counts the findings.
func (p *Pulse) fill(texts []string, now, width int64) error {
	var a, l, al, mt [4]int64
	var q [6]any
	for i, into := range []any{&a, &l, &al, &q, &mt} {
		if err := json.Unmarshal([]byte(texts[i]), into); err != nil {
			return fmt.Errorf("an unexpected answer %q: %w", texts[i], err)
		}
	}
	p.Rows, p.Expired, p.InvalidJSON = a[0], a[1], a[2]
	p.Sampled, p.SampledExpired, p.SampledInvalid = a[0], a[1], a[2]
	if stride := a[3]; stride > width {
		// The windows sampled width of every stride rowids.
		p.Estimated = true
		for _, n := range []*int64{&p.Rows, &p.Expired, &p.InvalidJSON} {
			*n = int64(math.Round(float64(*n) * float64(stride) / float64(width)))
		}
	}
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

// RowsText and ExpiredText are the pulse's rows and expired rows as a
// user reads them (EstimateText).
func (p Pulse) RowsText() string { return EstimateText(p.Rows, p.Sampled, p.Estimated) }

// ExpiredText is the expired rows as a user reads them.
func (p Pulse) ExpiredText() string { return EstimateText(p.Expired, p.SampledExpired, p.Estimated) }

// EstimateText is a figure as a user reads it: exact, as it is; an
// estimate with ~ before it and no more digits than the sampled rows it
// rests on bear: two (~47k, ~1.0M), one under ten sampled rows (~200: one
// sampled row of every 244 rowids), ~0 when the sample held none.
func EstimateText(n, sampled int64, estimated bool) string {
	if !estimated {
		return strconv.FormatInt(n, 10)
	}
	if sampled == 0 || n == 0 {
		return "~0"
	}
	digits := 2
	if sampled < 10 {
		digits = 1
	}
	r := float64(n)
	scale := math.Pow(10, math.Floor(math.Log10(r))-float64(digits-1))
	r = math.Round(r/scale) * scale
	unit, div := "", 1.0
	switch {
	case r >= 1e6:
		unit, div = "M", 1e6
	case r >= 1e3:
		unit, div = "k", 1e3
	}
	v := r / div
	decimals := max(0, digits-len(strconv.FormatInt(int64(v), 10)))
	return "~" + strconv.FormatFloat(v, 'f', decimals, 64) + unit
}
