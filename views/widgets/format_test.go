package widgets

import (
	"math"
	"testing"
	"time"
)

// TestHuman pins every span Human names, years included, and the
// saturated maximum.
func TestHuman(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0ms"},
		{850 * time.Millisecond, "850ms"},
		{12 * time.Second, "12s"},
		{5 * time.Minute, "5m"},
		{5*time.Minute + 12*time.Second, "5m12s"},
		{2*time.Hour + 3*time.Minute, "2h3m"},
		{3*24*time.Hour + 4*time.Hour, "3d4h"},
		{364 * 24 * time.Hour, "364d0h"},
		{(5*365 + 12) * 24 * time.Hour, "5y12d"},
		{math.MaxInt64, "more than 292y"},
	} {
		if got := Human(c.d); got != c.want {
			t.Errorf("Human(%d) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestFarExpiries: an instant more than ~292 years from now is far in
// the future or far in the past, never the other way round (Go's Duration
// overflowed and an expiry 300 years away showed
// as long expired), down to the int64 extremes the store can hold.
func TestFarExpiries(t *testing.T) {
	const now = int64(1767312000000) // 2026-01-02
	const year = int64(365 * 24 * time.Hour / time.Millisecond)
	for _, c := range []struct {
		at   int64
		want string
	}{
		{now + 30_000, "in 30s"},
		{now - 12_000, "expired 12s ago"},
		{now + 100*year, "in 100y0d"},
		{now + 300*year, "in more than 292y"},
		{math.MaxInt64, "in more than 292y"},
		{now - 300*year, "expired more than 292y ago"},
		{math.MinInt64, "expired more than 292y ago"},
	} {
		if got := Countdown(MsUntil(c.at, now)); got != c.want {
			t.Errorf("Countdown(MsUntil(%d, now)) = %q, want %q", c.at, got, c.want)
		}
	}
	if got := RelativeTo(math.MinInt64, now, "late"); got != "late more than 292y" {
		t.Errorf("RelativeTo(MinInt64) = %q", got)
	}
	if got := RelativeTo(now, now, "late"); got != "now" {
		t.Errorf("RelativeTo(now) = %q", got)
	}
	if got := MsUntil(5, -math.MaxInt64); got != math.MaxInt64 {
		t.Errorf("MsUntil across the int64 range = %d, want saturated", got)
	}
}

// TestBytesText pins the unit steps.
func TestBytesText(t *testing.T) {
	for n, want := range map[int64]string{812: "812 B", 4300: "4.2 KiB", 3 << 20: "3.0 MiB", 5 << 30: "5.0 GiB"} {
		if got := BytesText(n); got != want {
			t.Errorf("BytesText(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestTableAndShortTimes pins the instants the tables and prose show: UTC,
// milliseconds only when there are any (TableTime, ShortTime) in three
// digits, and the
// cell forms of constant width whatever the milliseconds and the day.
func TestTableAndShortTimes(t *testing.T) {
	const now = int64(1767312000000) // 2026-01-02 00:00:00 UTC
	for _, c := range []struct {
		name, got, want string
	}{
		{"TableTime", TableTime(now + 1500), "01-02 00:00:01.500"},
		{"TableTime 50ms", TableTime(now + 50), "01-02 00:00:00.050"},
		{"TableTime whole", TableTime(now), "01-02 00:00:00"},
		{"TableTimeCell", TableTimeCell(now), "01-02 00:00:00    "},
		{"TableTimeCell ms", TableTimeCell(now + 123), "01-02 00:00:00.123"},
		{"ShortTime today", ShortTime(now+3_600_250, now), "01:00:00.250"},
		{"ShortTime other day, ms", ShortTime(now-950, now), "Jan 1 23:59:59.050"},
		{"ShortTime other day", ShortTime(now-1000, now), "Jan 1 23:59:59"},
		{"ShortTime same day a year on", ShortTime(now+365*24*3_600_000, now), "Jan 2 00:00:00"},
		{"ShortTimeCell today", ShortTimeCell(now+5, now), "00:00:00.005"},
		{"ShortTimeCell other day", ShortTimeCell(now-1000, now), "Jan  1 23:59:59.000"},
		{"RelativeTo ahead", RelativeTo(now+90_000, now, "late"), "in 1m30s"},
		{"RelativeTo behind", RelativeTo(now-3_000, now, "late"), "late 3s"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if a, b := len(TableTimeCell(now)), len(TableTimeCell(now+7)); a != b {
		t.Errorf("TableTimeCell widths %d and %d differ", a, b)
	}
}

// TestMsDurSaturates: a span of milliseconds is exact up to the largest
// Duration and saturates beyond, both ways, instead of wrapping.
func TestMsDurSaturates(t *testing.T) {
	for _, c := range []struct {
		ms   int64
		want time.Duration
	}{
		{1500, 1500 * time.Millisecond},
		{-1500, -1500 * time.Millisecond},
		{maxMs, time.Duration(maxMs) * time.Millisecond},
		{maxMs + 1, math.MaxInt64},
		{-maxMs - 1, -math.MaxInt64},
		{math.MinInt64, -math.MaxInt64},
	} {
		if got := MsDur(c.ms); got != c.want {
			t.Errorf("MsDur(%d) = %d, want %d", c.ms, got, c.want)
		}
	}
	if got := MsUntil(math.MaxInt64, -5); got != math.MaxInt64 {
		t.Errorf("MsUntil(MaxInt64, -5) = %d, want saturated", got)
	}
}
