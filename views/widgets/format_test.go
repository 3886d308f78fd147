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
// the future or far in the past, never the other way round (issue 25
// point 11: Go's Duration overflowed and an expiry 300 years away showed
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
