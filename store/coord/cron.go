package coord

import (
	"context"
	"fmt"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
)

// Tick is the outcome of ClaimTick.
type Tick struct {
	// Key is ["dwk_cron", schedule, Bucket].
	Key codec.Key
	// Bucket is floor(now/interval)·interval.
	Bucket int64
	// Won is true when this caller claimed the bucket and should run the
	// tick; false when another replica already had.
	Won bool
	// Holder and Versionstamp are this caller's, set when Won.
	Holder       string
	Versionstamp string
}

// Bucket returns floor(now/interval)·interval for an interval in ms (> 0).
func Bucket(now, intervalMs int64) int64 {
	q := now / intervalMs
	if now%intervalMs != 0 && now < 0 {
		q-- // Go truncates toward zero; the reference floors
	}
	return q * intervalMs
}

// ClaimTick claims the tick of schedule for the bucket holding now, like
// the reference: commit check(key, absent) + set(key, {holder}, expireIn
// interval). The row is never released; it expires.
func ClaimTick(ctx context.Context, s *store.Store, schedule string, interval time.Duration, now int64) (Tick, error) {
	ms := interval.Milliseconds()
	if ms <= 0 {
		return Tick{}, fmt.Errorf("%w: cron interval %s is under a millisecond", ErrInvalidArgument, interval)
	}
	bucket := Bucket(now, ms)
	if err := checkSafe("cron bucket", bucket); err != nil {
		return Tick{}, err
	}
	t := Tick{Key: CronKey(schedule, bucket), Bucket: bucket}
	holder := NewUUID()
	res, err := s.Atomic().Check(t.Key, "").SetExpiring(t.Key, holderValue(holder), interval).Commit(ctx)
	if err != nil {
		return Tick{}, fmt.Errorf("claim tick %s: %w", t.Key, err)
	}
	if res.OK {
		t.Won, t.Holder, t.Versionstamp = true, holder, res.Versionstamp
	}
	return t, nil
}
