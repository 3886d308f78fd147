package widgets

import (
	"fmt"
	"math"
	"time"

	"kvdeck/internal/usertext"
)

// BytesText is a byte count the way people read one: 812 B, 4.2 KiB,
// 3.1 MiB (usertext.BytesText).
func BytesText(n int64) string { return usertext.BytesText(n) }

// Countdown says how far away an instant is: "in 29s" or "expired 12s ago".
func Countdown(d time.Duration) string {
	if d > 0 {
		return "in " + Human(d)
	}
	return "expired " + Human(-d) + " ago"
}

// Human formats a duration the way people read one: 850ms, 12s, 5m12s,
// 2h3m, 3d4h, 5y12d (usertext.DurationText, the CLI's words too).
func Human(d time.Duration) string {
	if d == math.MaxInt64 {
		return "more than 292y" // saturated (MsDur): at least this far
	}
	return usertext.DurationText(d.Milliseconds())
}

// TableTime is an instant as the tables show it: month-day and time of
// day in UTC, with milliseconds (three digits) when there are any.
func TableTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format(usertext.WithMillis(ms, "01-02 15:04:05"))
}

// TableTimeCell is TableTime for a table cell: always 18 cells wide
// (padded after when the milliseconds drop), so a column of times does not
// jump when trailing zeros drop.
func TableTimeCell(ms int64) string { return fmt.Sprintf("%-18s", TableTime(ms)) }

// ShortTime is an instant for prose beside now: the time of day when it
// falls on now's UTC day, else month-day and time of day.
func ShortTime(ms, now int64) string {
	t, n := time.UnixMilli(ms).UTC(), time.UnixMilli(now).UTC()
	if t.YearDay() == n.YearDay() && t.Year() == n.Year() {
		return t.Format(usertext.WithMillis(ms, "15:04:05"))
	}
	return t.Format(usertext.WithMillis(ms, "Jan 2 15:04:05"))
}

// ShortTimeCell is ShortTime for a table column (the Activity tab's SEEN):
// always three millisecond digits and a padded day, so a column of them
// keeps its width.
func ShortTimeCell(ms, now int64) string {
	t, n := time.UnixMilli(ms).UTC(), time.UnixMilli(now).UTC()
	if t.YearDay() == n.YearDay() && t.Year() == n.Year() {
		return t.Format("15:04:05.000")
	}
	return t.Format("Jan _2 15:04:05.000")
}

// maxMs is the longest span of milliseconds a time.Duration holds (about
// 292 years).
const maxMs = int64(math.MaxInt64 / int64(time.Millisecond))

// MsDur is a span of epoch milliseconds as a duration, saturated at
// ±math.MaxInt64 (Human says "more than 292y") instead of wrapping around:
// an expiry 300 years away is far in the future, not long past.
func MsDur(ms int64) time.Duration {
	switch {
	case ms > maxMs:
		return math.MaxInt64
	case ms < -maxMs:
		return -math.MaxInt64
	}
	return time.Duration(ms) * time.Millisecond
}

// MsUntil is the span from now to at (epoch milliseconds), saturated like
// MsDur; at - now itself may not fit an int64 (an expiry written as
// math.MinInt64).
func MsUntil(at, now int64) time.Duration {
	d := at - now
	if (now > 0 && d > at) || (now < 0 && d < at) {
		if now > 0 {
			return -math.MaxInt64
		}
		return math.MaxInt64
	}
	return MsDur(d)
}

// RelativeTo says where an instant lies from now: "in 12s", "late 3s"
// (overdue) or "now".
func RelativeTo(at, now int64, past string) string {
	switch d := MsUntil(at, now); {
	case d > 0:
		return "in " + Human(d)
	case d < 0:
		return past + " " + Human(-d)
	}
	return "now"
}
