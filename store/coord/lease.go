package coord

import (
	"context"
	"fmt"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/retry"
	"kvdeck/store"
)

// Lease defaults of the reference.
const (
	// DefaultLeaseTTL is how long a lease lives when its holder never
	// releases it (a crash safety net; there is no renewal).
	DefaultLeaseTTL = 30 * time.Second
	// DefaultAcquireTimeout is how long Acquire retries a held lease.
	DefaultAcquireTimeout = 5 * time.Second
	// firstRetryDelay and maxRetryDelay bound the retry schedule:
	// min(50·2^attempt, 1000) ms.
	firstRetryDelay = 50 * time.Millisecond
	maxRetryDelay   = time.Second
)

// Lease is an acquired lease: the proof a holder needs to release it.
type Lease struct {
	// Key is the lease row's key.
	Key codec.Key
	// Holder is the random id written as {"holder": ...}.
	Holder string
	// Versionstamp is the stamp of the acquiring commit: the fencing token
	// and what Release checks.
	Versionstamp string
	// ExpiresAt is when the lease lapses, in epoch milliseconds (the store's
	// clock at the commit plus the TTL).
	ExpiresAt int64
}

// LeaseOptions tune Acquire. The zero value is the reference's defaults.
type LeaseOptions struct {
	// TTL is the lease's lifetime (DefaultLeaseTTL when zero).
	TTL time.Duration
	// Timeout is how long to retry a held lease (DefaultAcquireTimeout when
	// zero; negative means a single attempt).
	Timeout time.Duration
	// Sleep waits between attempts; nil sleeps on a real timer. It must
	// return ctx's error when ctx ends first. The time it is asked to wait
	// counts against Timeout even if it returns early, so a test can pass a
	// Sleep that only records the delays.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (o LeaseOptions) ttl() time.Duration {
	if o.TTL == 0 {
		return DefaultLeaseTTL
	}
	return o.TTL
}

func (o LeaseOptions) timeout() time.Duration {
	if o.Timeout == 0 {
		return DefaultAcquireTimeout
	}
	return o.Timeout
}

func (o LeaseOptions) sleep(ctx context.Context, d time.Duration) error {
	if o.Sleep != nil {
		return o.Sleep(ctx, d)
	}
	return retry.Wait(ctx, d)
}

// RetryDelay is the wait after failed attempt number attempt (0-based):
// min(50·2^attempt, 1000) ms.
func RetryDelay(attempt int) time.Duration {
	if attempt >= 5 { // 50·2^5 = 1600 ms, already past the cap
		return maxRetryDelay
	}
	return min(firstRetryDelay<<attempt, maxRetryDelay)
}

// Acquire takes the lease of object idHex of class className, the key
// ["dwk_lease", className, idHex]. See AcquireKey.
func Acquire(ctx context.Context, s *store.Store, className, idHex string, opts LeaseOptions) (Lease, error) {
	return AcquireKey(ctx, s, LeaseKey(className, idHex), opts)
}

// AcquireKey takes the lease at key like the reference: commit check(key,
// absent) + set(key, {holder}, expireIn TTL) with a new random holder; while
// someone else holds it, retry after RetryDelay(attempt) until Timeout has
// passed, then fail with ErrLeaseContended. A row that expired but was not
// swept does not hold the lease.
func AcquireKey(ctx context.Context, s *store.Store, key codec.Key, opts LeaseOptions) (Lease, error) {
	ttl, timeout := opts.ttl(), opts.timeout()
	if ttl < time.Millisecond {
		return Lease{}, fmt.Errorf("%w: lease TTL %s is under a millisecond", ErrInvalidArgument, ttl)
	}
	holder := NewUUID()
	value := holderValue(holder)
	start := time.Now()
	var waited time.Duration
	for attempt := 0; ; attempt++ {
		now := s.Now()
		res, err := s.Atomic().Check(key, "").SetExpiring(key, value, ttl).Commit(ctx)
		if err != nil {
			return Lease{}, fmt.Errorf("acquire lease %s: %w", key, err)
		}
		if res.OK {
			return Lease{Key: key, Holder: holder, Versionstamp: res.Versionstamp, ExpiresAt: now + ttl.Milliseconds()}, nil
		}
		elapsed := max(time.Since(start), waited)
		if timeout < 0 {
			return Lease{}, fmt.Errorf("%w: %s is held by someone else; one attempt made, no retry asked", ErrLeaseContended, key)
		}
		if elapsed >= timeout {
			return Lease{}, fmt.Errorf("%w: %s is held by someone else; gave up after %s in %s", ErrLeaseContended, key, attempts(attempt+1), timeout)
		}
		d := min(RetryDelay(attempt), timeout-elapsed)
		waited += d
		if err := opts.sleep(ctx, d); err != nil {
			return Lease{}, fmt.Errorf("acquire lease %s: %w", key, err)
		}
	}
}

// Release gives a lease back: commit check(key, the acquire stamp) +
// delete(key). When the lease already lapsed and someone else holds it now,
// nothing changes and released is false.
func Release(ctx context.Context, s *store.Store, l Lease) (released bool, err error) {
	return casDelete(ctx, s, l.Key, l.Versionstamp)
}

// Break deletes the lease at key only if its versionstamp is still
// stampSeen (what the operator was shown), so that it never removes a lease
// taken after the operator looked. broken is false when the lease changed
// or is gone. store.NullStamp, what kvdeck shows for a row whose ver is
// no stamp (another writer's TEXT or fractional REAL, or 0), breaks the
// lease while its ver is still no stamp: a lease re-acquired meanwhile
// has a real one and is kept.
func Break(ctx context.Context, s *store.Store, key codec.Key, stampSeen string) (broken bool, err error) {
	if stampSeen == store.NullStamp {
		broken, err = s.DeleteUnstamped(ctx, key)
		if err != nil {
			return false, fmt.Errorf("delete %s with no stamp: %w", key, err)
		}
		return broken, nil
	}
	return casDelete(ctx, s, key, stampSeen)
}

// casDelete deletes key if its live row has stamp.
func casDelete(ctx context.Context, s *store.Store, key codec.Key, stamp string) (bool, error) {
	if stamp == "" {
		return false, fmt.Errorf("%w: deleting %s safely needs the versionstamp it had", ErrInvalidArgument, key)
	}
	res, err := s.Atomic().Check(key, stamp).Delete(key).Commit(ctx)
	if err != nil {
		return false, fmt.Errorf("delete %s at %s: %w", key, stamp, err)
	}
	return res.OK, nil
}

// attempts counts attempts in words that agree in number.
func attempts(n int) string {
	if n == 1 {
		return "1 attempt"
	}
	return fmt.Sprintf("%d attempts", n)
}
