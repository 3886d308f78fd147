package coord

import (
	"context"
	"errors"
	"fmt"
	"time"

	"kvdeck/store"
)

// AlarmInvocation is what an alarm handler is told.
type AlarmInvocation struct {
	Class      string
	ID         string
	EpochMs    int64
	RetryCount int
	// IsRetry is RetryCount > 0.
	IsRetry bool
}

// AlarmHandler runs a fired alarm; an error is the reference's throw.
type AlarmHandler func(ctx context.Context, a AlarmInvocation) error

// AlarmOutcome says what one poll did with one due entry.
type AlarmOutcome string

// The outcomes of a due entry in a poll.
const (
	// AlarmFired: the handler ran and succeeded.
	AlarmFired AlarmOutcome = "fired"
	// AlarmRetrying: the handler failed; a retry is due at Next.
	AlarmRetrying AlarmOutcome = "retry-scheduled"
	// AlarmKeptOwn: the handler failed after setting its own alarm, which
	// stands instead of a retry.
	AlarmKeptOwn AlarmOutcome = "kept-own"
	// AlarmDropped: the handler failed on its last retry; the alarm is gone.
	AlarmDropped AlarmOutcome = "dropped"
	// AlarmSuperseded: the by-id record changed after the listing; the
	// claimed entry was stale and nothing ran.
	AlarmSuperseded AlarmOutcome = "superseded"
	// AlarmLost: another poller claimed the entry first.
	AlarmLost AlarmOutcome = "claimed-elsewhere"
	// AlarmReposted: the object's lease could not be taken (or the slot
	// could not be cleared); the alarm was re-posted at now with the same
	// retry count.
	AlarmReposted AlarmOutcome = "reposted"
)

// AlarmFiring reports one due entry of a poll.
type AlarmFiring struct {
	AlarmInvocation
	Outcome AlarmOutcome
	// Next is the new due time of a retry or re-post.
	Next int64
	// Err is the handler's error, or why the lease could not be taken.
	Err error
}

// AlarmPoller fires the due alarms of one class like a replica's poller.
type AlarmPoller struct {
	// Store holds the alarms.
	Store *store.Store
	// Class is the object class whose alarms are polled.
	Class string
	// Handler runs each alarm; nil succeeds at once (kvdeck's manual fire).
	Handler AlarmHandler
	// Lease tunes taking the object's lease ["dwk_lease", Class, idHex].
	Lease LeaseOptions
	// BatchSize caps the due entries of one poll (DefaultAlarmBatch).
	BatchSize int
}

// restoreTimeout bounds the writes that put a claimed alarm back when the
// caller's context has ended: a claimed entry that is not restored is lost.
const restoreTimeout = 10 * time.Second

// Poll lists the due entries of the class at now and, for each, claims it
// and fires it: take the object's lease, clear the claimed slot (only when
// by-id still matches), run the handler, and on failure schedule a retry
// (AlarmRetryBaseMs·2^retryCount later, at most MaxAlarmRetries) unless the
// handler set an alarm of its own. A lease that cannot be taken re-posts
// the alarm at now without using a retry. It returns one report per due
// entry, in time order, up to the first store error.
func (p *AlarmPoller) Poll(ctx context.Context, now int64) ([]AlarmFiring, error) {
	due, err := DueAlarms(ctx, p.Store, p.Class, now, p.BatchSize)
	if err != nil {
		return nil, err
	}
	var out []AlarmFiring
	for _, d := range due {
		inv := AlarmInvocation{Class: d.Class, ID: d.ID, EpochMs: d.EpochMs, RetryCount: d.RetryCount, IsRetry: d.RetryCount > 0}
		claimed, err := ClaimAlarm(ctx, p.Store, d)
		if err != nil {
			return out, err
		}
		if !claimed {
			out = append(out, AlarmFiring{AlarmInvocation: inv, Outcome: AlarmLost})
			continue
		}
		f, err := p.fire(ctx, inv, now)
		out = append(out, f)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// fire runs one claimed alarm under its object's lease.
func (p *AlarmPoller) fire(ctx context.Context, inv AlarmInvocation, now int64) (AlarmFiring, error) {
	f := AlarmFiring{AlarmInvocation: inv}
	lease, err := Acquire(ctx, p.Store, inv.Class, inv.ID, p.Lease)
	if err != nil {
		return p.repost(ctx, f, now, err)
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restoreTimeout)
		defer cancel()
		_, _ = Release(rctx, p.Store, lease) // the TTL frees it if this fails
	}()
	still, err := ClearClaimedAlarm(ctx, p.Store, inv.Class, inv.ID, inv.EpochMs, inv.RetryCount)
	if err != nil {
		return p.repost(ctx, f, now, err) // the handler never ran: no retry used
	}
	if !still {
		f.Outcome = AlarmSuperseded
		return f, nil
	}
	if p.Handler != nil {
		f.Err = p.Handler(ctx, inv)
	}
	if f.Err == nil {
		f.Outcome = AlarmFired
		return f, nil
	}
	return p.afterFailure(ctx, f, now)
}

// repost puts a claimed alarm back at now with its retry count, as the
// reference does when the handler could not run (the claim removed the due
// entry: without this the alarm is lost). The write outlives ctx.
func (p *AlarmPoller) repost(ctx context.Context, f AlarmFiring, now int64, cause error) (AlarmFiring, error) {
	f.Outcome, f.Next, f.Err = AlarmReposted, now, cause
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restoreTimeout)
	defer cancel()
	if err := ScheduleRetry(rctx, p.Store, f.Class, f.ID, now, f.RetryCount); err != nil {
		// The cause is named, not wrapped: a re-post that failed after a
		// cancelled handler must not read as the poller's own cancellation.
		return f, fmt.Errorf("re-post alarm %s/%s after %s: %w", f.Class, f.ID, cause.Error(), err)
	}
	return f, nil
}

// afterFailure schedules the retry of a failed handler, unless the retries
// are used up or the handler set its own alarm.
func (p *AlarmPoller) afterFailure(ctx context.Context, f AlarmFiring, now int64) (AlarmFiring, error) {
	if f.RetryCount >= MaxAlarmRetries {
		f.Outcome = AlarmDropped
		return f, nil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), restoreTimeout)
	defer cancel()
	_, pending, err := GetAlarm(rctx, p.Store, f.Class, f.ID)
	if err != nil && !errors.Is(err, ErrMalformed) {
		return f, err
	}
	if pending {
		f.Outcome = AlarmKeptOwn
		return f, nil
	}
	f.Outcome, f.Next = AlarmRetrying, RetryAt(now, f.RetryCount)
	return f, ScheduleRetry(rctx, p.Store, f.Class, f.ID, f.Next, f.RetryCount+1)
}
