package usertext

import (
	"errors"
	"fmt"
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
