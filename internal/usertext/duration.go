package usertext

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// ParseDuration reads a Go duration of whole milliseconds, kvdeck's
// resolution: "30s", "1m30s", "250ms", "-1s". Spaces around it are
// ignored. Errors do not repeat s; callers name it.
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, errors.New("want a Go duration like 30s, 1m30s or 250ms")
	}
	if d%time.Millisecond != 0 {
		return 0, errors.New("kvdeck counts whole milliseconds")
	}
	return d, nil
}

// ParseDurationAtLeast is ParseDuration refusing a duration under least:
// 0 for a delay, a millisecond for a positive TTL.
func ParseDurationAtLeast(s string, least time.Duration) (time.Duration, error) {
	d, err := ParseDuration(s)
	switch {
	case err != nil:
		return 0, err
	case d >= least:
		return d, nil
	case least == 0:
		return 0, errors.New("want a whole number of milliseconds, 0 or more")
	case least == time.Millisecond:
		return 0, errors.New("want a positive whole number of milliseconds")
	}
	return 0, fmt.Errorf("want at least %s", least)
}

// DurationText is how kvdeck writes a span of milliseconds for people,
// in prose and in the CLI's tables alike (doctor's lateness, fleet's
// cells, the TUI's ages through widgets.Human): its two largest units,
// truncated: 850ms, 12s, 5m12s, 2h3m, 3d4h, 5y12d (years of 365 days);
// whole minutes as 5m; negative with a minus.
func DurationText(ms int64) string {
	const (
		second = 1000
		minute = 60 * second
		hour   = 60 * minute
		day    = 24 * hour
		year   = 365 * day
	)
	switch {
	case ms < 0:
		if ms == math.MinInt64 {
			ms++ // its negation does not fit; a millisecond less is the same text
		}
		return "-" + DurationText(-ms)
	case ms < second:
		return fmt.Sprintf("%dms", ms)
	case ms < minute:
		return fmt.Sprintf("%ds", ms/second)
	case ms < hour && ms%minute < second:
		return fmt.Sprintf("%dm", ms/minute)
	case ms < hour:
		return fmt.Sprintf("%dm%ds", ms/minute, ms%minute/second)
	case ms < day:
		return fmt.Sprintf("%dh%dm", ms/hour, ms%hour/minute)
	case ms < year:
		return fmt.Sprintf("%dd%dh", ms/day, ms%day/hour)
	}
	return fmt.Sprintf("%dy%dd", ms/year, ms%year/day)
}

// ShortMillis is a duration in milliseconds in its largest whole unit,
// short: 850ms, 12s, 4m, 3h, 2d (truncated; negative with a minus), for
// a fixed narrow column (the TUI's Fleet view); elsewhere DurationText.
func ShortMillis(ms int64) string {
	switch {
	case ms < 0:
		return "-" + ShortMillis(-ms)
	case ms < 1000:
		return fmt.Sprintf("%dms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%ds", ms/1000)
	case ms < 3_600_000:
		return fmt.Sprintf("%dm", ms/60_000)
	case ms < 86_400_000:
		return fmt.Sprintf("%dh", ms/3_600_000)
	}
	return fmt.Sprintf("%dd", ms/86_400_000)
}
