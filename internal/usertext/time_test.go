package usertext

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const t0 = 1767312000000 // 2026-01-02T00:00:00Z

func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		err  string
	}{
		{"1767312000000", t0, ""},
		{"0", 0, ""},
		{"-1000", -1000, ""},
		{" 42 ", 42, ""},
		{"now", t0, ""},
		{"+5m", t0 + 300000, ""},
		{"-1h30m", t0 - 5400000, ""},
		{"+250ms", t0 + 250, ""},
		{"2026-01-02T00:00:00Z", t0, ""},
		{"2026-01-02T01:00:00+01:00", t0, ""},
		{"2026-01-02T00:00:00.25Z", t0 + 250, ""},
		{"2026-01-02T00:00:00.250Z", t0 + 250, ""},
		{"0001-01-01T00:00:00Z", MinTime, ""},
		{"9999-12-31T23:59:59.999Z", MaxTime, ""},
		{"", 0, "empty time"},
		{"+5", 0, "not a Go duration"},
		{"-", 0, "want epoch milliseconds"},
		{"5m", 0, "want epoch milliseconds"},
		{"2026-01-02", 0, "RFC 3339"},
		{"tomorrow", 0, "want epoch milliseconds"},
		{"99999999999999999999", 0, "out of range"},
		{"253402300800000", 0, "out of range"},
		{"-62135596800001", 0, "out of range"},
		{"+2562048h", 0, "not a Go duration"},
	} {
		got, err := ParseTime(tc.in, t0)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseTime(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseTime(%q) = %d, %v; want an error with %q", tc.in, got, err, tc.err)
		}
	}
	if _, err := ParseTime("soon", t0); !errors.Is(err, ErrNotTime) {
		t.Errorf("ParseTime(soon): %v, want ErrNotTime", err)
	}
	if _, err := ParseTime("+1h", MaxTime); err == nil || !strings.Contains(err.Error(), "out of range (years") {
		t.Errorf("an offset past year 9999: %v", err)
	}
	if _, err := ParseTime("+1s", MaxTime+1); err == nil || !strings.Contains(err.Error(), "clock is out of range") {
		t.Errorf("an offset from a clock out of range: %v", err)
	}
}

// TestParseTimeSpec: the form is kept apart from the clock, so that
// :clock can move by an offset rather than stop at an instant.
func TestParseTimeSpec(t *testing.T) {
	for in, want := range map[string]TimeSpec{
		"now":                  {Now: true},
		"+5m":                  {Relative: true, Offset: 5 * time.Minute},
		"-1h":                  {Relative: true, Offset: -time.Hour},
		"-5":                   {At: -5},
		"1767312000000":        {At: t0},
		"2026-01-02T00:00:00Z": {At: t0},
	} {
		if got, err := ParseTimeSpec(in); err != nil || got != want {
			t.Errorf("ParseTimeSpec(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
}

// TestFormatTime: FormatTime writes milliseconds only when there are
// some; FormatTimeFixed gives every instant the same 24 characters, with
// three millisecond digits whatever they are, and reads back as itself.
func TestFormatTime(t *testing.T) {
	for _, c := range []struct {
		ms           int64
		plain, fixed string
	}{
		{t0, "2026-01-02T00:00:00Z", "2026-01-02T00:00:00.000Z"},
		{t0 + 45, "2026-01-02T00:00:00.045Z", "2026-01-02T00:00:00.045Z"},
		{t0 + 50, "2026-01-02T00:00:00.050Z", "2026-01-02T00:00:00.050Z"},
		{t0 + 100, "2026-01-02T00:00:00.100Z", "2026-01-02T00:00:00.100Z"},
		{t0 + 123, "2026-01-02T00:00:00.123Z", "2026-01-02T00:00:00.123Z"},
		{t0 + 250, "2026-01-02T00:00:00.250Z", "2026-01-02T00:00:00.250Z"},
		{MinTime, "0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"},
		{MaxTime, "9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"},
	} {
		if got := FormatTime(c.ms); got != c.plain {
			t.Errorf("FormatTime(%d) = %s, want %s", c.ms, got, c.plain)
		}
		got := FormatTimeFixed(c.ms)
		if got != c.fixed || len(got) != 24 {
			t.Errorf("FormatTimeFixed(%d) = %s (%d characters), want %s", c.ms, got, len(got), c.fixed)
		}
		if back, err := ParseTime(got, t0); err != nil || back != c.ms {
			t.Errorf("FormatTimeFixed(%d) = %s reads back as %d, %v", c.ms, got, back, err)
		}
	}
}

// FuzzParseTime: no input panics; what is accepted lies in range, and an
// instant written by FormatTime reads back as itself.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"1767312000000", "now", "+5m", "-30s", "2026-01-02T00:00:00Z", "-", "+", "-9223372036854775808",
		"9999-12-31T23:59:59.999999999Z", " 42 ", "-1h30m"} {
		f.Add(s, int64(t0))
	}
	f.Fuzz(func(t *testing.T, s string, now int64) {
		ms, err := ParseTime(s, now)
		if err != nil {
			return
		}
		if ms < MinTime || ms > MaxTime {
			t.Fatalf("ParseTime(%q, %d) = %d: out of range", s, now, ms)
		}
		if back, err := ParseTime(FormatTime(ms), now); err != nil || back != ms {
			t.Fatalf("FormatTime(%d) = %s reads back as %d, %v", ms, FormatTime(ms), back, err)
		}
		if fixed := FormatTimeFixed(ms); len(fixed) != 24 {
			t.Fatalf("FormatTimeFixed(%d) = %s: %d characters, want 24", ms, fixed, len(fixed))
		} else if back, err := ParseTime(fixed, now); err != nil || back != ms {
			t.Fatalf("FormatTimeFixed(%d) = %s reads back as %d, %v", ms, fixed, back, err)
		}
	})
}
