package leases

import (
	"math"
	"testing"

	"kvdeck/store/coord"
)

// TestFarExpiries: a lease expiring more than ~292 years from now is held,
// one at the int64 minimum expired long ago; the arithmetic never wraps.
func TestFarExpiries(t *testing.T) {
	const now = int64(1767312000000)
	far, low := now+300*365*24*3600*1000, int64(math.MinInt64)
	if st, txt := leaseStateAt(coord.LeaseRow{ExpiresAt: &far, TTLMs: 30000}, now), leftText(coord.LeaseRow{ExpiresAt: &far}, now); st != coord.LeaseHeld || txt != "more than 292y" {
		t.Errorf("300 years away: %v, %q; want held, more than 292y", st, txt)
	}
	if st, txt := leaseStateAt(coord.LeaseRow{ExpiresAt: &low, TTLMs: 30000}, now), leftText(coord.LeaseRow{ExpiresAt: &low}, now); st != coord.LeaseExpired || txt != "more than 292y ago" {
		t.Errorf("at the int64 minimum: %v, %q; want expired, more than 292y ago", st, txt)
	}
}
