package coord

import (
	"context"

	"kvdeck/store"
)

// ReadPulseSampled is ReadPulse sampling windows windows of width rowids
// (tests of the sample without thousands of rows).
func ReadPulseSampled(ctx context.Context, s *store.Store, now, windows, width int64) (Pulse, error) {
	p, _, err := readPulse(ctx, s, now, windows, width, false)
	return p, err
}
