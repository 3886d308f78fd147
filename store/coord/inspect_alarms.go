package coord

import (
	"context"
	"fmt"
	"slices"

	"kvdeck/codec"
	"kvdeck/store"
)

// AlarmEntry is one alarm row: a due-index entry or a by-id record.
type AlarmEntry struct {
	Key          codec.Key
	Versionstamp string
	ID           string
	// EpochMs is the due time: from the key of a due entry, from the value
	// of a by-id record.
	EpochMs    int64
	RetryCount int
	// Overdue is EpochMs <= now (due, not fired yet); LatenessMs is then
	// now - EpochMs.
	Overdue    bool
	LatenessMs int64
	// Poison is RetryCount >= PoisonRetryCount.
	Poison bool
	// Matched: a due entry whose by-id record holds the same {epochMs,
	// retryCount}, or a by-id record with such a due entry.
	Matched bool
	// Problem says why the row has an unexpected shape ("" when fine).
	Problem string
}

// AlarmClass is the alarms of one class.
type AlarmClass struct {
	Class string
	// Due is the due index in time order; ByID the records in id order.
	Due  []AlarmEntry
	ByID []AlarmEntry
}

// alarmCollector gathers the live dwk_alarm_due and dwk_alarm_by_id rows
// (expired ones are invisible to services).
type alarmCollector struct {
	now      int64
	classes  map[string]*AlarmClass
	findings []Finding
}

func newAlarmCollector(now int64) *alarmCollector {
	return &alarmCollector{now: now, classes: map[string]*AlarmClass{}}
}

func (c *alarmCollector) class(name string) *AlarmClass {
	ac := c.classes[name]
	if ac == nil {
		ac = &AlarmClass{Class: name}
		c.classes[name] = ac
	}
	return ac
}

func (c *alarmCollector) add(e store.Entry) {
	if !e.Live(c.now) {
		return
	}
	first, _ := keyString(e.Key, 0)
	class, okClass := keyString(e.Key, 1)
	a := AlarmEntry{Key: e.Key, Versionstamp: e.Versionstamp()}
	if first == PrefixAlarmDue {
		d, err := parseDueAlarm(e)
		a.ID, a.EpochMs, a.RetryCount = d.ID, d.EpochMs, d.RetryCount
		if err == nil {
			if rec, _ := decodeAlarm(e.Value); rec.EpochMs != d.EpochMs {
				err = fmt.Errorf("%w: its value says epochMs %d, its key %d", ErrMalformed, rec.EpochMs, d.EpochMs)
			}
		}
		c.addEntry(okClass, class, a, err, func(ac *AlarmClass) *[]AlarmEntry { return &ac.Due })
		return
	}
	id, okID := keyString(e.Key, 2)
	rec, err := decodeAlarm(e.Value)
	if len(e.Key) != 3 || !okClass || !okID {
		err = fmt.Errorf("%w: a by-id key is [%q, className, idHex]", ErrMalformed, PrefixAlarmByID)
	}
	a.ID, a.EpochMs, a.RetryCount = id, rec.EpochMs, rec.RetryCount
	c.addEntry(okClass, class, a, err, func(ac *AlarmClass) *[]AlarmEntry { return &ac.ByID })
}

// addEntry files a into its class's list, or reports it as malformed.
func (c *alarmCollector) addEntry(okClass bool, class string, a AlarmEntry, err error, list func(*AlarmClass) *[]AlarmEntry) {
	if err != nil {
		a.Problem = err.Error()
		c.findings = append(c.findings, Finding{Severity: SeverityWarning, Code: "alarm.malformed", Key: a.Key, Message: "unexpected alarm row (the poller skips it): " + a.Problem})
	}
	if okClass {
		l := list(c.class(class))
		*l = append(*l, a)
	}
}

// finish matches due entries with by-id records and reports the
// inconsistencies, overdue, retried and poison alarms.
func (c *alarmCollector) finish(now int64) ([]AlarmClass, []Finding) {
	out := c.findings
	names := make([]string, 0, len(c.classes))
	for n := range c.classes {
		names = append(names, n)
	}
	slices.Sort(names)
	classes := make([]AlarmClass, 0, len(names))
	for _, n := range names {
		ac := c.classes[n]
		out = append(out, ac.analyse(now)...)
		classes = append(classes, *ac)
	}
	return classes, out
}

// analyse fills Matched, Overdue and Poison and returns the findings.
func (ac *AlarmClass) analyse(now int64) []Finding {
	var out []Finding
	byID := map[string]*AlarmEntry{}
	for i := range ac.ByID {
		if ac.ByID[i].Problem == "" {
			byID[ac.ByID[i].ID] = &ac.ByID[i]
		}
	}
	dues := map[string][]*AlarmEntry{}
	var ids []string // in due order, for a stable report
	for i := range ac.Due {
		d := &ac.Due[i]
		if d.Problem != "" {
			continue
		}
		if dues[d.ID] == nil {
			ids = append(ids, d.ID)
		}
		dues[d.ID] = append(dues[d.ID], d)
		d.Poison = d.RetryCount >= PoisonRetryCount
		if b := byID[d.ID]; b != nil && b.EpochMs == d.EpochMs && b.RetryCount == d.RetryCount {
			d.Matched, b.Matched = true, true
			out = append(out, d.report(ac.Class, now)...)
			continue
		}
		why := "no by-id record"
		if b := byID[d.ID]; b != nil {
			why = fmt.Sprintf("the by-id record says due %s, retry %d", when(b.EpochMs), b.RetryCount)
		}
		out = append(out, Finding{Severity: SeverityWarning, Code: "alarm.orphan", Key: d.Key,
			Message: fmt.Sprintf("%s/%s: due entry at %s (retry %d) has %s: a stale entry left by a race; harmless, a poller will claim and drop it", ac.Class, d.ID, when(d.EpochMs), d.RetryCount, why)})
	}
	for i := range ac.ByID {
		b := &ac.ByID[i]
		b.Poison = b.RetryCount >= PoisonRetryCount
		if b.Problem != "" || b.Matched {
			continue
		}
		out = append(out, Finding{Severity: SeverityError, Code: "alarm.never-fires", Key: b.Key,
			Message: fmt.Sprintf("%s/%s: the by-id record says due %s (retry %d) but no due entry matches it, so it will never fire (a claimer crashed before clearing it); re-post it with kvdeck alarm set %s %s %d", ac.Class, b.ID, when(b.EpochMs), b.RetryCount, ac.Class, b.ID, b.EpochMs)})
	}
	for _, id := range ids {
		ds := dues[id]
		if len(ds) < 2 {
			continue
		}
		k := ds[0].Key
		if b := byID[id]; b != nil {
			k = b.Key
		}
		out = append(out, Finding{Severity: SeverityWarning, Code: "alarm.duplicate-due", Key: k,
			Message: fmt.Sprintf("%s/%s has %d due entries; one alarm has one slot, the extra ones are stale", ac.Class, id, len(ds))})
	}
	return out
}

// report fills Overdue and returns the findings of a matched due entry.
func (d *AlarmEntry) report(class string, now int64) []Finding {
	var out []Finding
	if d.EpochMs <= now {
		d.Overdue, d.LatenessMs = true, now-d.EpochMs
		out = append(out, Finding{Severity: lateness(d.LatenessMs), Code: "alarm.overdue", Key: d.Key,
			Message: fmt.Sprintf("%s/%s was due %s and is %s late: no poller has fired it yet", class, d.ID, when(d.EpochMs), span(d.LatenessMs))})
	}
	switch {
	case d.Poison:
		out = append(out, Finding{Severity: SeverityWarning, Code: "alarm.poison", Key: d.Key,
			Message: fmt.Sprintf("%s/%s failed %d times (retry %d of %d): its handler keeps failing; after the last retry it is dropped without trace", class, d.ID, d.RetryCount, d.RetryCount, MaxAlarmRetries)})
	case d.RetryCount > 0:
		out = append(out, Finding{Severity: SeverityInfo, Code: "alarm.retried", Key: d.Key,
			Message: fmt.Sprintf("%s/%s is on retry %d of %d after its handler failed", class, d.ID, d.RetryCount, MaxAlarmRetries)})
	}
	return out
}

// InspectAlarms reports the alarms of className (every class when empty)
// at now, with their consistency findings.
func InspectAlarms(ctx context.Context, s *store.Store, className string, now int64) ([]AlarmClass, []Finding, error) {
	c := newAlarmCollector(now)
	if err := scanInto(ctx, s, prefix(PrefixAlarmByID, className), c.add); err != nil {
		return nil, nil, err
	}
	if err := scanInto(ctx, s, prefix(PrefixAlarmDue, className), c.add); err != nil {
		return nil, nil, err
	}
	classes, fs := c.finish(now)
	return classes, fs, nil
}
