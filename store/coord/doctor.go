package coord

import (
	"context"
	"fmt"

	"kvdeck/codec"
	"kvdeck/store"
)

// Report is the whole store inspected at one now.
type Report struct {
	Now    int64
	Leases []LeaseRow
	Alarms []AlarmClass
	Queues []QueueReport
	Cron   []CronSchedule
	Meta   MetaReport
	Store  StoreHealth
	// Findings are sorted by severity, code and key, at most
	// MaxFindingsPerCode per code plus a summary of the rest.
	Findings []Finding
}

// Inspect reports every area at now. The store-wide health (counts of
// rows, expired, undecodable, invalid and malformed rows) is aggregated by
// SQL on the server (store.Census: windows of rows, only aggregates travel);
// only the coordination prefixes are read row by row, in one listing of
// them all (store.DumpPrefixes). Queue messages are judged with
// DefaultMaxAttempts.
func Inspect(ctx context.Context, s *store.Store, now int64) (Report, error) {
	lc, cc := &leaseCollector{}, &cronCollector{}
	ac, qc := newAlarmCollector(now), newQueueCollector(now, DefaultMaxAttempts)
	mc := &metaCollector{now: now}
	route := map[string]func(store.Entry){
		PrefixLease:     lc.add,
		PrefixCron:      cc.add,
		PrefixAlarmDue:  ac.add,
		PrefixAlarmByID: ac.add,
		PrefixQueueDue:  qc.add,
		PrefixMeta:      mc.add,
	}
	var prefixes []codec.Key
	for _, p := range []string{PrefixAlarmByID, PrefixAlarmDue, PrefixCron, PrefixLease, PrefixMeta, PrefixQueueDue} {
		prefixes = append(prefixes, codec.Key{codec.String(p)})
	}
	err := s.DumpPrefixes(ctx, prefixes, func(e store.Entry) error {
		if e.KeyErr != nil {
			return nil
		}
		if first, ok := keyString(e.Key, 0); ok && route[first] != nil {
			route[first](e)
		}
		return nil
	})
	if err != nil {
		return Report{}, fmt.Errorf("inspect: %w", err)
	}
	health, err := storeHealth(ctx, s, now)
	if err != nil {
		return Report{}, fmt.Errorf("inspect: %w", err)
	}
	sc := &storeCollector{now: now, h: health}
	r := Report{Now: now, Meta: mc.rep, Store: health}
	fs := lc.finish(now)
	fs = append(fs, cc.finish()...)
	r.Leases = append(lc.rows, cronRows(cc.schedules, now)...)
	for _, sch := range cc.schedules {
		r.Cron = append(r.Cron, *sch)
	}
	var more []Finding
	r.Alarms, more = ac.finish(now)
	fs = append(fs, more...)
	r.Queues, more = qc.finish()
	fs = append(fs, more...)
	fs = append(fs, mc.findings...)
	fs = append(fs, sc.finish()...)
	SortFindings(fs)
	r.Findings = capFindings(fs)
	return r, nil
}

// Doctor inspects the store at now and returns its findings: the weak
// spots of the coordination records (alarms that will never fire,
// orphaned and duplicate due entries, overdue and poison alarms, ready
// queue backlogs, messages on their final attempt, long-held leases and
// leases without expiry, missing cron buckets, double wins and skewed
// claims, leftover probes, a mode other than "central", expired rows not
// swept, undecodable keys, invalid JSON) and every coordination row of an
// unexpected shape; and, of the store itself, a rollback-journal file
// (fileFindings). A healthy store yields no finding.
func Doctor(ctx context.Context, s *store.Store, now int64) ([]Finding, error) {
	r, err := Inspect(ctx, s, now)
	if err != nil {
		return nil, err
	}
	fs := append(r.Findings, fileFindings(s)...)
	SortFindings(fs)
	return fs, nil
}

// fileFindings are what doctor says of a file store's file rather than of
// its rows: a rollback-journal file, where any read during a commit fails
// that commit when its writer sets no busy timeout
// (store.JournalAdvice: what it costs, what WAL changes, the command that
// switches). A warning: the store works, and the cost depends on its
// readers; the TUI's tabs, which show Inspect, leave it to the status
// bar.
func fileFindings(s *store.Store) []Finding {
	if a := s.JournalAdvice(); a != "" {
		return []Finding{{Severity: SeverityWarning, Code: "store.rollback-journal", Message: a}}
	}
	return nil
}
