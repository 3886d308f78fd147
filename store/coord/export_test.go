package coord

import (
	"context"

	"kvdeck/store"
)

// ReadPulseBounded is ReadPulse counting at most bound rows (tests of the
// bound without 100000 rows).
func ReadPulseBounded(ctx context.Context, s *store.Store, now, bound int64) (Pulse, error) {
	p, _, err := readPulse(ctx, s, now, bound, false)
	return p, err
}
