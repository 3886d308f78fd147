package widgets

import (
	"fmt"
	"time"
)

// stampText shows a check's expectation: the stamp, or "absent".
func StampText(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}

// bytesText is a byte count the way people read one: 812 B, 4.2 KiB, 3.1 MiB.
func BytesText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// countdown says how far away an instant is: "in 29s" or "expired 12s ago".
func Countdown(d time.Duration) string {
	if d > 0 {
		return "in " + Human(d)
	}
	return "expired " + Human(-d) + " ago"
}

// human formats a duration the way people read one: 850ms, 12s, 5m12s,
// 2h3m, 3d4h.
func Human(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour && int(d.Seconds())%60 == 0:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}
