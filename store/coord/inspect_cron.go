package coord

import (
	"context"
	"fmt"

	"kvdeck/codec"
	"kvdeck/store"
)

// CronBucket is one tick-lease row of a schedule.
type CronBucket struct {
	Key          codec.Key
	Bucket       int64
	Holder       string
	Versionstamp string
	ExpiresAt    *int64
	// Problem says why the row has an unexpected shape ("" when fine).
	Problem string
}

// CronSchedule is what the rows of one schedule show.
type CronSchedule struct {
	Name string
	// Buckets are the rows present, expired ones included, in bucket order.
	Buckets []CronBucket
	// IntervalMs is the schedule's interval as inferred by InferInterval;
	// 0 when the rows do not tell.
	IntervalMs int64
	// Missing counts the buckets no replica won between the first and the
	// last bucket seen; MissingSample lists the first few.
	Missing       int64
	MissingSample []int64
	// DoubleWins lists adjacent buckets closer together than the interval.
	DoubleWins [][2]int64
}

// maxMissingSample bounds CronSchedule.MissingSample.
const maxMissingSample = 10

// niceIntervals are the intervals schedules are usually written with; see
// InferInterval.
var niceIntervals = []int64{
	1000, 2000, 5000, 10000, 15000, 20000, 30000,
	60000, 120000, 300000, 600000, 900000, 1200000, 1800000,
	3600000, 7200000, 10800000, 21600000, 43200000, 86400000,
}

// InferInterval estimates a schedule's interval from its rows, since the
// store does not record it. A bucket is a multiple of the interval and its
// row expires interval ms after the winning commit, which happens during
// the bucket, so expiresAt - bucket (the hint) lies in [interval,
// 2·interval). For each row with an expiry the estimate is the hint itself
// when it divides the bucket (a claim right at the bucket's start), else the
// largest usual interval (1 s … 1 d) that divides the bucket and lies in
// (hint/2, hint]; the schedule's interval is the most common estimate (the
// larger on a tie). Without any expiry it is the greatest common divisor of
// the bucket spacings (two buckets at least), else 0 (unknown).
func InferInterval(buckets []int64, expiresAt []*int64) int64 {
	votes := map[int64]int{}
	for i, b := range buckets {
		if i >= len(expiresAt) || expiresAt[i] == nil {
			continue
		}
		if est := estimate(b, *expiresAt[i]-b); est > 0 {
			votes[est]++
		}
	}
	best, bestVotes := int64(0), 0
	for est, n := range votes {
		if n > bestVotes || (n == bestVotes && est > best) {
			best, bestVotes = est, n
		}
	}
	if best > 0 {
		return best
	}
	var g int64
	for i := 1; i < len(buckets); i++ {
		g = gcd(g, buckets[i]-buckets[i-1])
	}
	return g
}

// estimate is one row's interval estimate from its bucket and hint.
func estimate(bucket, hint int64) int64 {
	if hint <= 0 {
		return 0
	}
	if bucket%hint == 0 {
		return hint
	}
	for i := len(niceIntervals) - 1; i >= 0; i-- {
		n := niceIntervals[i]
		if n <= hint && 2*n > hint && bucket%n == 0 {
			return n
		}
	}
	return 0
}

func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// cronCollector gathers dwk_cron rows, in key order (by schedule, then
// bucket).
type cronCollector struct {
	schedules []*CronSchedule
	findings  []Finding
}

func (c *cronCollector) add(e store.Entry) {
	name, okName := keyString(e.Key, 1)
	bucket, okBucket := keyInt(e.Key, 2)
	row := CronBucket{Key: e.Key, Bucket: bucket, Versionstamp: e.Versionstamp(), ExpiresAt: e.ExpiresAt}
	if len(e.Key) != 3 || !okName || !okBucket {
		c.malformed(e.Key, fmt.Sprintf("a cron key is [%q, schedule, bucket]", PrefixCron))
		return
	}
	holder, err := decodeHolder(e.Value)
	if err != nil {
		row.Problem = err.Error()
		c.malformed(e.Key, row.Problem)
	}
	row.Holder = holder
	if n := len(c.schedules); n == 0 || c.schedules[n-1].Name != name {
		c.schedules = append(c.schedules, &CronSchedule{Name: name})
	}
	sch := c.schedules[len(c.schedules)-1]
	sch.Buckets = append(sch.Buckets, row)
}

func (c *cronCollector) malformed(k codec.Key, why string) {
	c.findings = append(c.findings, Finding{Severity: SeverityWarning, Code: "cron.malformed", Key: k, Message: "unexpected cron row: " + why})
}

// finish infers intervals and finds gaps, double wins, late claims and
// rows without expiry.
func (c *cronCollector) finish() []Finding {
	out := c.findings
	for _, sch := range c.schedules {
		buckets := make([]int64, len(sch.Buckets))
		exps := make([]*int64, len(sch.Buckets))
		for i, b := range sch.Buckets {
			buckets[i], exps[i] = b.Bucket, b.ExpiresAt
		}
		sch.IntervalMs = InferInterval(buckets, exps)
		out = append(out, sch.analyse()...)
	}
	return out
}

// analyse fills Missing and DoubleWins and returns the schedule's findings.
func (sch *CronSchedule) analyse() []Finding {
	var out []Finding
	iv := sch.IntervalMs
	for i, b := range sch.Buckets {
		if b.ExpiresAt == nil {
			out = append(out, Finding{Severity: SeverityWarning, Code: "cron.no-expiry", Key: b.Key,
				Message: fmt.Sprintf("%s: the tick row of bucket %s has no expiry; it is never swept (rows are written with expireIn = interval)", sch.Name, when(b.Bucket))})
		} else if iv > 0 {
			if late := *b.ExpiresAt - iv - (b.Bucket + iv); late > 0 {
				out = append(out, Finding{Severity: SeverityWarning, Code: "cron.skew", Key: b.Key,
					Message: fmt.Sprintf("%s: bucket %s was won %s after it ended (interval %s): the winner's clock is behind, and the tick may have run twice", sch.Name, when(b.Bucket), span(late), span(iv))})
			}
		}
		if i == 0 || iv <= 0 {
			continue
		}
		prev := sch.Buckets[i-1].Bucket
		gap := b.Bucket - prev
		switch {
		case gap < iv || gap%iv != 0:
			sch.DoubleWins = append(sch.DoubleWins, [2]int64{prev, b.Bucket})
			out = append(out, Finding{Severity: SeverityWarning, Code: "cron.double-win", Key: b.Key,
				Message: fmt.Sprintf("%s: buckets %s and %s are %s apart, off the %s interval: replicas run this schedule with different intervals or skewed clocks, so the tick ran more often than planned", sch.Name, when(prev), when(b.Bucket), span(gap), span(iv))})
		case gap > iv:
			n := gap/iv - 1
			for m := prev + iv; m < b.Bucket && len(sch.MissingSample) < maxMissingSample; m += iv {
				sch.MissingSample = append(sch.MissingSample, m)
			}
			sch.Missing += n
			out = append(out, Finding{Severity: SeverityWarning, Code: "cron.missing-buckets", Key: b.Key,
				Message: fmt.Sprintf("%s: %d bucket(s) of %s between %s and %s were never won: no replica ran those ticks", sch.Name, n, span(iv), when(prev), when(b.Bucket))})
		}
	}
	return out
}

// InspectCron reports every cron schedule (or only name) at now.
func InspectCron(ctx context.Context, s *store.Store, name string, now int64) ([]CronSchedule, []Finding, error) {
	c := &cronCollector{}
	if err := scanInto(ctx, s, prefix(PrefixCron, name), c.add); err != nil {
		return nil, nil, err
	}
	fs := c.finish()
	out := make([]CronSchedule, len(c.schedules))
	for i, sch := range c.schedules {
		out[i] = *sch
	}
	return out, fs, nil
}

// scanInto feeds every physical row under p (expired ones included) whose
// key decodes to add; Doctor reports the others.
func scanInto(ctx context.Context, s *store.Store, p codec.Key, add func(store.Entry)) error {
	err := s.Scan(ctx, store.ListOptions{Prefix: p, IncludeExpired: true}, func(e store.Entry) error {
		if e.KeyErr == nil {
			add(e)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("scan %s: %w", p, err)
	}
	return nil
}
