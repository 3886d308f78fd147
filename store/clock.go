package store

import (
	"fmt"
	"sync/atomic"
	"time"
)

// VirtualClock is the clock kvdeck runs on: the real clock, a fixed instant
// (--now), or the real clock shifted by an offset (--clock-offset, :clock),
// changeable while the program runs. It is safe for concurrent use; pass its
// Now method as Options.Clock.
type VirtualClock struct {
	base   Clock
	fixed  atomic.Int64 // epoch ms; 0 means not fixed
	offset atomic.Int64 // nanoseconds
}

// NewVirtualClock returns a clock that follows base (SystemClock when nil).
func NewVirtualClock(base Clock) *VirtualClock {
	if base == nil {
		base = SystemClock
	}
	return &VirtualClock{base: base}
}

// Now returns the virtual time in epoch milliseconds.
func (c *VirtualClock) Now() int64 {
	if f := c.fixed.Load(); f != 0 {
		return f
	}
	return c.base() + time.Duration(c.offset.Load()).Milliseconds()
}

// Fix freezes the clock at ms (epoch milliseconds) and drops any offset.
func (c *VirtualClock) Fix(ms int64) {
	c.offset.Store(0)
	c.fixed.Store(ms)
}

// Shift follows the real clock moved by d and unfreezes the clock.
func (c *VirtualClock) Shift(d time.Duration) {
	c.fixed.Store(0)
	c.offset.Store(int64(d))
}

// Advance moves the clock by d: a frozen clock moves its instant, a
// shifted one its offset.
func (c *VirtualClock) Advance(d time.Duration) {
	if f := c.fixed.Load(); f != 0 {
		c.fixed.Store(f + d.Milliseconds())
		return
	}
	c.offset.Add(int64(d))
}

// Reset returns to the real clock.
func (c *VirtualClock) Reset() {
	c.fixed.Store(0)
	c.offset.Store(0)
}

// Virtual reports whether the clock differs from the real one.
func (c *VirtualClock) Virtual() bool { return c.fixed.Load() != 0 || c.offset.Load() != 0 }

// Describe says how the clock differs from the real one, for status bars:
// "" for the real clock, "fixed 2026-01-02T00:00:00Z", or "+5m0s".
func (c *VirtualClock) Describe() string {
	if f := c.fixed.Load(); f != 0 {
		return "fixed " + time.UnixMilli(f).UTC().Format(time.RFC3339Nano)
	}
	if o := time.Duration(c.offset.Load()); o != 0 {
		if o > 0 {
			return fmt.Sprintf("+%s", o)
		}
		return o.String()
	}
	return ""
}
