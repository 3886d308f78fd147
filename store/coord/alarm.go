package coord

import (
	"context"
	"errors"
	"fmt"

	"kvdeck/codec"
	"kvdeck/store"
)

// Alarm constants of the reference.
const (
	// DefaultAlarmBatch is how many due alarms one poll of a class claims.
	DefaultAlarmBatch = 100
	// AlarmRetryBaseMs is the first retry delay after a failing handler;
	// retry n (0-based) waits AlarmRetryBaseMs·2^n.
	AlarmRetryBaseMs = 2000
	// MaxAlarmRetries is how many retries a failing alarm gets before it is
	// dropped without trace.
	MaxAlarmRetries = 6
	// PoisonRetryCount flags an alarm that keeps failing: at this retry
	// count it has at most one more chance.
	PoisonRetryCount = 5
)

// SetAlarm schedules, or replaces, the single alarm of object idHex of
// class className at epochMs with retryCount 0.
func SetAlarm(ctx context.Context, s *store.Store, className, idHex string, epochMs int64) error {
	return writeAlarm(ctx, s, className, idHex, AlarmRecord{EpochMs: epochMs})
}

// ScheduleRetry writes the alarm like SetAlarm but keeps retryCount, as the
// reference's retry and re-post paths do.
func ScheduleRetry(ctx context.Context, s *store.Store, className, idHex string, epochMs int64, retryCount int) error {
	if retryCount < 0 {
		return fmt.Errorf("%w: retry count %d is negative", ErrInvalidArgument, retryCount)
	}
	return writeAlarm(ctx, s, className, idHex, AlarmRecord{EpochMs: epochMs, RetryCount: retryCount})
}

// writeAlarm reads by-id, then commits without checks: delete the old due
// entry, set the new due entry and by-id (one stamp for both). A by-id row
// that does not decode names no due entry; it is overwritten and whatever
// due entry it had is left for inspection to report as an orphan.
func writeAlarm(ctx context.Context, s *store.Store, className, idHex string, rec AlarmRecord) error {
	if err := checkSafe("alarm time", rec.EpochMs); err != nil {
		return err
	}
	byID := AlarmByIDKey(className, idHex)
	existing, found, err := GetAlarm(ctx, s, className, idHex)
	if err != nil && !errors.Is(err, ErrMalformed) {
		return err
	}
	a := s.Atomic()
	if found && err == nil {
		a.Delete(AlarmDueKey(className, existing.EpochMs, idHex))
	}
	value := rec.encode()
	if _, err := a.Set(AlarmDueKey(className, rec.EpochMs, idHex), value).Set(byID, value).Commit(ctx); err != nil {
		return fmt.Errorf("write alarm %s/%s: %w", className, idHex, err)
	}
	return nil
}

// GetAlarm returns the alarm of class/id from its by-id row. A row whose
// value does not decode is reported with found true and an error wrapping
// ErrMalformed.
func GetAlarm(ctx context.Context, s *store.Store, className, idHex string) (rec AlarmRecord, found bool, err error) {
	rec, stamp, err := getAlarm(ctx, s, className, idHex)
	return rec, stamp != "", err
}

// getAlarm is GetAlarm with the by-id row's versionstamp ("" when absent).
func getAlarm(ctx context.Context, s *store.Store, className, idHex string) (AlarmRecord, string, error) {
	key := AlarmByIDKey(className, idHex)
	e, found, err := s.Get(ctx, key)
	if err != nil || !found {
		return AlarmRecord{}, "", err
	}
	rec, err := decodeAlarm(e.Value)
	if err != nil {
		return AlarmRecord{}, e.Versionstamp(), fmt.Errorf("%s: %w", key, err)
	}
	return rec, e.Versionstamp(), nil
}

// DeleteAlarm removes the alarm of class/id: its due entry and its by-id
// row, in one commit. It is a no-op (deleted false) when there is none.
func DeleteAlarm(ctx context.Context, s *store.Store, className, idHex string) (deleted bool, err error) {
	rec, found, err := GetAlarm(ctx, s, className, idHex)
	if !found {
		return false, err
	}
	a := s.Atomic()
	if err == nil {
		a.Delete(AlarmDueKey(className, rec.EpochMs, idHex))
	}
	if _, err := a.Delete(AlarmByIDKey(className, idHex)).Commit(ctx); err != nil {
		return false, fmt.Errorf("delete alarm %s/%s: %w", className, idHex, err)
	}
	return true, nil
}

// DueAlarm is a due-index entry found by DueAlarms: what a claim needs.
type DueAlarm struct {
	Key          codec.Key
	Versionstamp string
	Class        string
	ID           string
	// EpochMs comes from the key, RetryCount from the value, as in the
	// reference.
	EpochMs    int64
	RetryCount int
}

// DueAlarms lists the due entries of class at now (epochMs <= now) in time
// order, at most limit (DefaultAlarmBatch when zero): the list of prefix
// ["dwk_alarm_due", class] ending before ["dwk_alarm_due", class, now+1].
// Entries whose key or value has an unexpected shape are skipped (they
// still count against limit, as in the reference's listing); inspection
// reports them.
func DueAlarms(ctx context.Context, s *store.Store, className string, now int64, limit int) ([]DueAlarm, error) {
	if limit <= 0 {
		limit = DefaultAlarmBatch
	}
	page, err := s.List(ctx, store.ListOptions{
		Prefix: prefix(PrefixAlarmDue, className),
		End:    codec.Key{codec.String(PrefixAlarmDue), codec.String(className), codec.Number(float64(now + 1))},
		Limit:  limit,
	})
	if err != nil {
		return nil, fmt.Errorf("list due alarms of %s: %w", className, err)
	}
	out := make([]DueAlarm, 0, len(page.Entries))
	for _, e := range page.Entries {
		if d, err := parseDueAlarm(e); err == nil {
			out = append(out, d)
		}
	}
	return out, nil
}

// parseDueAlarm reads a due-index row.
func parseDueAlarm(e store.Entry) (DueAlarm, error) {
	class, okClass := keyString(e.Key, 1)
	epoch, okEpoch := keyInt(e.Key, 2)
	id, okID := keyString(e.Key, 3)
	if len(e.Key) != 4 || !okClass || !okEpoch || !okID {
		return DueAlarm{}, fmt.Errorf("%w: a due-index key is [%q, class, epochMs, idHex]", ErrMalformed, PrefixAlarmDue)
	}
	rec, err := decodeAlarm(e.Value)
	if err != nil {
		return DueAlarm{}, err
	}
	return DueAlarm{Key: e.Key, Versionstamp: e.Versionstamp(), Class: class, ID: id, EpochMs: epoch, RetryCount: rec.RetryCount}, nil
}

// ClaimAlarm takes a due entry for this poller: commit check(dueKey, its
// stamp) + delete(dueKey). claimed is false when another poller was first.
func ClaimAlarm(ctx context.Context, s *store.Store, d DueAlarm) (claimed bool, err error) {
	return casDelete(ctx, s, d.Key, d.Versionstamp)
}

// ClearClaimedAlarm consumes the alarm slot after a claim: when the by-id
// row still holds {epochMs, retryCount}, it deletes that due key and the
// by-id row, guarded by the by-id stamp, and reports true (fire the
// handler). It reports false and changes nothing when the alarm was
// superseded (rescheduled, retried or deleted) meanwhile.
func ClearClaimedAlarm(ctx context.Context, s *store.Store, className, idHex string, epochMs int64, retryCount int) (bool, error) {
	rec, stamp, err := getAlarm(ctx, s, className, idHex)
	if errors.Is(err, ErrMalformed) {
		return false, nil
	}
	if err != nil || stamp == "" || rec.EpochMs != epochMs || rec.RetryCount != retryCount {
		return false, err
	}
	byID := AlarmByIDKey(className, idHex)
	res, err := s.Atomic().Check(byID, stamp).Delete(AlarmDueKey(className, epochMs, idHex)).Delete(byID).Commit(ctx)
	if err != nil {
		return false, fmt.Errorf("clear claimed alarm %s/%s: %w", className, idHex, err)
	}
	return res.OK, nil
}

// RetryAt is when retry number retryCount+1 of a failing alarm is due:
// now + AlarmRetryBaseMs·2^retryCount.
func RetryAt(now int64, retryCount int) int64 {
	return now + AlarmRetryBaseMs<<retryCount
}
