package usertext

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The instants kvdeck reads and writes: years 0001 to 9999, the range RFC
// 3339 can write.
const (
	MinTime int64 = -62135596800000 // 0001-01-01T00:00:00Z
	MaxTime int64 = 253402300799999 // 9999-12-31T23:59:59.999Z
)

// ErrNotTime is wrapped by the error for text that is none of the forms
// of a TIME, so that a form can say it in its own words.
var ErrNotTime = errors.New("want epoch milliseconds, an RFC 3339 time (2026-01-02T15:04:05Z), now or +DURATION")

// TimeSpec is a TIME as typed, before it is read against a clock: "now",
// an offset from now, or an instant.
type TimeSpec struct {
	Now      bool          // "now"
	Relative bool          // Offset from now: "+5m", "-30s"
	Offset   time.Duration // with Relative
	At       int64         // epoch ms; neither Now nor Relative
}

// ParseTimeSpec reads a TIME: "now", a Go duration from now with its sign
// ("+5m", "-1h30m"), epoch milliseconds ("1767312000000", "-1000") or an
// RFC 3339 time ("2026-01-02T00:00:00Z", fractions and offsets allowed).
// Spaces around it are ignored; an instant must lie in MinTime..MaxTime.
// Errors do not repeat s (callers name it), except a bad offset's.
func ParseTimeSpec(s string) (TimeSpec, error) {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return TimeSpec{}, errors.New("empty time: want epoch milliseconds, an RFC 3339 time, now or +DURATION")
	case t == "now":
		return TimeSpec{Now: true}, nil
	case t[0] == '+' || t[0] == '-' && len(t) > 1 && !isDigits(t[1:]):
		d, err := time.ParseDuration(t)
		if err != nil {
			return TimeSpec{}, fmt.Errorf("%q is not a Go duration like +5m or -30s", t)
		}
		return TimeSpec{Relative: true, Offset: d}, nil
	case isDigits(t) || t[0] == '-' && isDigits(t[1:]):
		ms, err := strconv.ParseInt(t, 10, 64)
		if err != nil {
			return TimeSpec{}, errors.New("epoch milliseconds out of range")
		}
		return TimeSpec{At: ms}, inRange(ms)
	}
	tm, err := time.Parse(time.RFC3339Nano, t)
	if err != nil {
		return TimeSpec{}, ErrNotTime
	}
	return TimeSpec{At: tm.UnixMilli()}, inRange(tm.UnixMilli())
}

// Resolve returns the instant t names, in epoch milliseconds, with now the
// (virtual) current time.
func (t TimeSpec) Resolve(now int64) (int64, error) {
	switch {
	case t.Now:
		return now, nil
	case t.Relative:
		if inRange(now) != nil {
			return 0, errors.New("the clock is out of range")
		}
		ms := now + t.Offset.Milliseconds() // |Offset| < 2^63 ns = 2^63/1e6 ms: no overflow
		return ms, inRange(ms)
	}
	return t.At, inRange(t.At)
}

// ParseTime reads a TIME (ParseTimeSpec) against now and returns epoch
// milliseconds.
func ParseTime(s string, now int64) (int64, error) {
	spec, err := ParseTimeSpec(s)
	if err != nil {
		return 0, err
	}
	return spec.Resolve(now)
}

func inRange(ms int64) error {
	if ms < MinTime || ms > MaxTime {
		return errors.New("out of range (years 0001 to 9999)")
	}
	return nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FormatTime writes epoch milliseconds as an RFC 3339 UTC time, with
// milliseconds only when they are not zero, then always three digits:
// 2026-01-02T00:00:45Z, 2026-01-02T00:00:45.250Z (never .25 beside a
// table's .250).
func FormatTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(WithMillis(ms, "2006-01-02T15:04:05Z07:00"))
}

// WithMillis is layout, a Go time layout whose seconds are "05", with
// ".000" after the seconds when ms has milliseconds: how kvdeck writes
// an instant's fraction everywhere, three digits or none.
func WithMillis(ms int64, layout string) string {
	if time.UnixMilli(ms).Nanosecond() == 0 {
		return layout
	}
	return strings.Replace(layout, "05", "05.000", 1)
}

// FormatTimeFixed writes epoch milliseconds as FormatTime does but always
// with three millisecond digits: 2026-01-02T00:00:45.000Z,
// 2026-01-02T00:00:45.250Z. Every instant of years 0001 to 9999 takes 24
// characters, so a column of times (watch -o text) keeps its width.
func FormatTimeFixed(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
