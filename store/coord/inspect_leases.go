package coord

import (
	"context"
	"fmt"

	"kvdeck/codec"
	"kvdeck/store"
)

// LeaseState is how a lease or cron tick row stands at now.
type LeaseState string

// The lease states.
const (
	// LeaseHeld: live, with more than ExpiringShare of its TTL left (or an
	// unknown TTL).
	LeaseHeld LeaseState = "held"
	// LeaseExpiring: live, with at most ExpiringShare of its TTL left.
	LeaseExpiring LeaseState = "expiring"
	// LeaseExpired: expired but not swept; it no longer holds anything.
	LeaseExpired LeaseState = "expired-unswept"
)

// The kinds of LeaseRow.
const (
	KindLease = "lease"
	KindCron  = "cron"
)

// LeaseRow is a lease or a cron tick-lease as the Leases view shows it.
type LeaseRow struct {
	Key codec.Key
	// Kind is KindLease or KindCron.
	Kind string
	// Name is the class (lease) or the schedule (cron).
	Name string
	// ID is the object id of a lease.
	ID string
	// Bucket is the tick bucket of a cron row.
	Bucket int64
	Holder string
	// Versionstamp is the fencing token.
	Versionstamp string
	ExpiresAt    *int64
	// TimeLeftMs is ExpiresAt - now (negative once expired; 0 without
	// expiry).
	TimeLeftMs int64
	// TTLMs is the lifetime the row was written with when it can be told
	// (see InspectLeases); 0 when unknown.
	TTLMs int64
	// AgeMs is how long ago the row was written (now - (ExpiresAt -
	// TTLMs)); -1 when the TTL is unknown.
	AgeMs int64
	State LeaseState
	// Problem says why the row has an unexpected shape ("" when fine).
	Problem string
}

// fill computes time left, age and state at now from TTLMs.
func (r *LeaseRow) fill(now int64) {
	r.AgeMs, r.State = -1, LeaseHeld
	if r.ExpiresAt == nil {
		return
	}
	r.TimeLeftMs = *r.ExpiresAt - now
	if r.TTLMs > 0 {
		r.AgeMs = now - (*r.ExpiresAt - r.TTLMs)
	}
	switch {
	case r.TimeLeftMs <= 0:
		r.State = LeaseExpired
	case r.TTLMs > 0 && float64(r.TimeLeftMs) <= ExpiringShare*float64(r.TTLMs):
		r.State = LeaseExpiring
	}
}

// leaseCollector gathers dwk_lease rows.
type leaseCollector struct {
	rows     []LeaseRow
	findings []Finding
}

func (c *leaseCollector) add(e store.Entry) {
	class, okClass := keyString(e.Key, 1)
	id, okID := keyString(e.Key, 2)
	r := LeaseRow{Key: e.Key, Kind: KindLease, Name: class, ID: id, Versionstamp: e.Versionstamp(), ExpiresAt: e.ExpiresAt}
	if len(e.Key) != 3 || !okClass || !okID {
		r.Problem = fmt.Sprintf("a lease key is [%q, className, idHex]", PrefixLease)
	} else if holder, err := decodeHolder(e.Value); err != nil {
		r.Problem = err.Error()
	} else {
		r.Holder = holder
	}
	if r.Problem != "" {
		c.findings = append(c.findings, Finding{Severity: SeverityWarning, Code: "lease.malformed", Key: e.Key, Message: "unexpected lease row: " + r.Problem})
	}
	c.rows = append(c.rows, r)
}

// finish fills the rows at now. The TTL is taken as DefaultLeaseTTL unless
// more time than that is left (then it was longer, and unknown).
func (c *leaseCollector) finish(now int64) []Finding {
	out := c.findings
	def := DefaultLeaseTTL.Milliseconds()
	for i := range c.rows {
		r := &c.rows[i]
		if r.ExpiresAt != nil && *r.ExpiresAt-now <= def {
			r.TTLMs = def
		}
		r.fill(now)
		switch {
		case r.Problem != "":
			// reported as malformed; its holder and age mean nothing
		case r.ExpiresAt == nil:
			out = append(out, Finding{Severity: SeverityError, Code: "lease.no-expiry", Key: r.Key,
				Message: fmt.Sprintf("lease of %s/%s has no expiry: it never lapses, so the object stays locked until someone breaks it (kvdeck lease break)", r.Name, r.ID)})
		case r.State != LeaseExpired && r.AgeMs >= LongHeld.Milliseconds():
			out = append(out, Finding{Severity: SeverityWarning, Code: "lease.long-held", Key: r.Key,
				Message: fmt.Sprintf("lease of %s/%s held for %s by %s (a lease covers one request): the holder may be hung; other replicas answer 503 for this object until it lapses at %s", r.Name, r.ID, span(r.AgeMs), r.Holder, when(*r.ExpiresAt))})
		}
	}
	return out
}

// cronRows turns cron buckets into lease rows, with the schedule's
// inferred interval as TTL.
func cronRows(schedules []*CronSchedule, now int64) []LeaseRow {
	var out []LeaseRow
	for _, sch := range schedules {
		for _, b := range sch.Buckets {
			r := LeaseRow{Key: b.Key, Kind: KindCron, Name: sch.Name, Bucket: b.Bucket, Holder: b.Holder,
				Versionstamp: b.Versionstamp, ExpiresAt: b.ExpiresAt, TTLMs: sch.IntervalMs, Problem: b.Problem}
			r.fill(now)
			out = append(out, r)
		}
	}
	return out
}

// InspectLeases reports every lease and cron tick row at now, expired
// ones included, leases first, each in key order. A lease's TTL is taken
// as the default 30 s unless more time than that is left; a cron row's is
// its schedule's inferred interval (InferInterval).
func InspectLeases(ctx context.Context, s *store.Store, now int64) ([]LeaseRow, []Finding, error) {
	lc, cc := &leaseCollector{}, &cronCollector{}
	if err := scanInto(ctx, s, prefix(PrefixLease, ""), lc.add); err != nil {
		return nil, nil, err
	}
	if err := scanInto(ctx, s, prefix(PrefixCron, ""), cc.add); err != nil {
		return nil, nil, err
	}
	fs := append(lc.finish(now), cc.finish()...)
	return append(lc.rows, cronRows(cc.schedules, now)...), fs, nil
}
