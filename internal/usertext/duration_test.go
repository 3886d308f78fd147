package usertext

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"30s": 30 * time.Second, " 1m30s ": 90 * time.Second, "250ms": 250 * time.Millisecond, "0s": 0, "-1s": -time.Second} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v", in, got, err)
		}
	}
	for in, msg := range map[string]string{"": "Go duration", "5": "Go duration", "soon": "Go duration", "1.5ms": "whole milliseconds", "1us": "whole milliseconds"} {
		if _, err := ParseDuration(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseDuration(%q): %v, want an error with %q", in, err, msg)
		}
	}
}

func TestParseDurationAtLeast(t *testing.T) {
	for _, tc := range []struct {
		in    string
		least time.Duration
		err   string
	}{
		{"0s", 0, ""},
		{"-1s", 0, "0 or more"},
		{"1ms", time.Millisecond, ""},
		{"0s", time.Millisecond, "positive"},
		{"500ms", 100 * time.Millisecond, ""},
		{"50ms", 100 * time.Millisecond, "at least 100ms"},
		{"x", 0, "Go duration"},
	} {
		_, err := ParseDurationAtLeast(tc.in, tc.least)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseDurationAtLeast(%q, %v): %v, want %q", tc.in, tc.least, err, tc.err)
		}
	}
}

// FuzzParseDuration: what is accepted is whole milliseconds and not under
// the bound, and prints back as itself.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"30s", "1m30s", "250ms", "-1s", "1.5ms", "1us", "", "9223372036854ms"} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, s string, least int64) {
		least = least % int64(time.Hour)
		d, err := ParseDurationAtLeast(s, time.Duration(least))
		if err != nil {
			return
		}
		if d%time.Millisecond != 0 || d < time.Duration(least) {
			t.Fatalf("ParseDurationAtLeast(%q, %d) = %v", s, least, d)
		}
		if back, err := ParseDuration(d.String()); err != nil || back != d {
			t.Fatalf("%v reads back as %v, %v", d, back, err)
		}
	})
}

func TestShortMillis(t *testing.T) {
	for ms, want := range map[int64]string{0: "0ms", 850: "850ms", 1000: "1s", 59_999: "59s", 60_000: "1m",
		3_599_999: "59m", 3_600_000: "1h", 86_399_999: "23h", 86_400_000: "1d", 3 * 86_400_000: "3d", -1500: "-1s"} {
		if got := ShortMillis(ms); got != want {
			t.Errorf("ShortMillis(%d) = %q, want %q", ms, got, want)
		}
	}
}

// TestDurationText pins every span kvdeck writes for people, from
// milliseconds to years, as doctor, fleet and the TUI write them (doctor
// wrote Go's 8116h13m57.418s where fleet wrote 338d).
func TestDurationText(t *testing.T) {
	const s, m, h, d = int64(1000), int64(60_000), int64(3_600_000), int64(86_400_000)
	for _, c := range []struct {
		ms   int64
		want string
	}{
		{0, "0ms"},
		{850, "850ms"},
		{1952, "1s"},
		{12 * s, "12s"},
		{5 * m, "5m"},
		{5*m + 999, "5m"},
		{5*m + 12*s, "5m12s"},
		{2*h + 3*m, "2h3m"},
		{2 * h, "2h0m"},
		{3*d + 4*h, "3d4h"},
		{8116*h + 13*m + 57418, "338d4h"},
		{364 * d, "364d0h"},
		{(5*365 + 12) * d, "5y12d"},
		{-5 * s, "-5s"},
		{math.MinInt64, "-292471208y247d"},
	} {
		if got := DurationText(c.ms); got != c.want {
			t.Errorf("DurationText(%d) = %q, want %q", c.ms, got, c.want)
		}
	}
}
