// Package coord implements the coordination records services keep in the
// store (leases, alarms, queue messages, cron tick-leases, the mode marker
// and startup probes) with the reference's key layouts, value shapes and
// rules, and the inspection that tells an operator what is wrong with
// them: per-area reports computed
// with range scans at a given now, and Doctor, which turns every weak spot
// into a Finding.
//
// Every function takes a context and either an explicit now (epoch
// milliseconds) or the store's clock (store.Store.Now); nothing reads the
// wall clock except the real sleeps between lease retries. Values are
// written as JSON text with the reference's key order; the store re-emits
// them exactly as JavaScript's JSON.stringify would.
package coord

import (
	"crypto/rand"
	"errors"
	"fmt"

	"kvdeck/codec"
	"kvdeck/store"
)

// The first key parts of the reference's records, and kvdeck's own
// dead-letter prefix (services never write one).
const (
	PrefixLease      = "dwk_lease"
	PrefixAlarmDue   = "dwk_alarm_due"
	PrefixAlarmByID  = "dwk_alarm_by_id"
	PrefixQueueDue   = "dwk_queue_due"
	PrefixCron       = "dwk_cron"
	PrefixMeta       = "dwk_meta"
	PrefixDeadLetter = "kvdeck_dead_letter"
)

// Sentinel errors; every error of one of these kinds wraps the sentinel.
var (
	// ErrLeaseContended: the lease stayed held by someone else for the
	// whole acquire timeout. The message names the key.
	ErrLeaseContended = errors.New("lease contended")
	// ErrMalformed: a row under a coordination prefix has a key or value of
	// an unexpected shape. Inspection reports such rows as findings; the
	// libraries refuse to act on them.
	ErrMalformed = errors.New("malformed coordination record")
	// ErrInvalidArgument: a caller passed an unusable argument (a
	// non-positive interval, an unsafe integer time, a bad JSON body). It
	// is store.ErrInvalidArgument: one sentinel for an unusable argument,
	// whichever layer refused it.
	ErrInvalidArgument = store.ErrInvalidArgument
)

// LeaseKey is ["dwk_lease", className, idHex].
func LeaseKey(className, idHex string) codec.Key {
	return codec.Key{codec.String(PrefixLease), codec.String(className), codec.String(idHex)}
}

// AlarmDueKey is ["dwk_alarm_due", className, epochMs, idHex].
func AlarmDueKey(className string, epochMs int64, idHex string) codec.Key {
	return codec.Key{codec.String(PrefixAlarmDue), codec.String(className), codec.Number(float64(epochMs)), codec.String(idHex)}
}

// AlarmByIDKey is ["dwk_alarm_by_id", className, idHex].
func AlarmByIDKey(className, idHex string) codec.Key {
	return codec.Key{codec.String(PrefixAlarmByID), codec.String(className), codec.String(idHex)}
}

// QueueKey is ["dwk_queue_due", queueName, dueAtMs, messageID].
func QueueKey(queue string, dueAt int64, id string) codec.Key {
	return codec.Key{codec.String(PrefixQueueDue), codec.String(queue), codec.Number(float64(dueAt)), codec.String(id)}
}

// CronKey is ["dwk_cron", scheduleName, tickBucket].
func CronKey(schedule string, bucket int64) codec.Key {
	return codec.Key{codec.String(PrefixCron), codec.String(schedule), codec.Number(float64(bucket))}
}

// ModeKey is ["dwk_meta", "mode"].
func ModeKey() codec.Key { return codec.Key{codec.String(PrefixMeta), codec.String("mode")} }

// ProbeKey is ["dwk_meta", "probe", id].
func ProbeKey(id string) codec.Key {
	return codec.Key{codec.String(PrefixMeta), codec.String("probe"), codec.String(id)}
}

// DeadLetterKey is ["kvdeck_dead_letter", queueName, messageID].
func DeadLetterKey(queue, id string) codec.Key {
	return codec.Key{codec.String(PrefixDeadLetter), codec.String(queue), codec.String(id)}
}

// prefix returns a one- or two-part prefix key; an empty second part means
// the whole record kind.
func prefix(kind, name string) codec.Key {
	if name == "" {
		return codec.Key{codec.String(kind)}
	}
	return codec.Key{codec.String(kind), codec.String(name)}
}

// NewUUID returns a random (version 4) UUID, like crypto.randomUUID(). It
// uses crypto/rand directly: sixteen random bytes and two masks do not
// justify a dependency.
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (Go 1.24+ crashes the program instead)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// maxSafe is Number.MAX_SAFE_INTEGER: the largest integer a JavaScript
// number (and a float64 key part) holds exactly.
const maxSafe = 1<<53 - 1

// checkSafe refuses times and counts that a JavaScript number cannot hold
// exactly, so that a key built from them names the row the reference would.
func checkSafe(what string, v int64) error {
	if v > maxSafe || v < -maxSafe {
		return fmt.Errorf("%w: %s %d is outside the exact range of a JavaScript number", ErrInvalidArgument, what, v)
	}
	return nil
}

// keyString returns part i of k as a string, or false.
func keyString(k codec.Key, i int) (string, bool) {
	if i >= len(k) || k[i].Kind() != codec.KindString {
		return "", false
	}
	return k[i].StringValue(), true
}

// keyInt returns part i of k as an integer number part, or false.
func keyInt(k codec.Key, i int) (int64, bool) {
	if i >= len(k) || k[i].Kind() != codec.KindNumber {
		return 0, false
	}
	return safeInt(k[i].NumberValue())
}

// safeInt converts f to an int64 when it is an integer a JavaScript number
// holds exactly.
func safeInt(f float64) (int64, bool) {
	if f != f || f > maxSafe || f < -maxSafe || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}
