package coord_test

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// TestDoctorSaysSpansAsFleetDoes: doctor's durations are written as the
// fleet and the TUI write them (usertext.DurationText), not as Go prints
// a duration: an alarm 8116h13m57.418s late is "338d4h late".
func TestDoctorSaysSpansAsFleetDoes(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		const late = 8116*3_600_000 + 13*60_000 + 57_418
		must(t, coord.SetAlarm(storetest.Ctx(t), s, "Cart", "old", storetest.T0-late))
		fs, err := coord.Doctor(storetest.Ctx(t), s, storetest.T0)
		must(t, err)
		for _, f := range fs {
			if strings.Contains(f.Message, "Cart/old") {
				if !strings.Contains(f.Message, " is 338d4h late") {
					t.Errorf("%s", f.Message)
				}
				return
			}
		}
		t.Fatalf("no finding of the late alarm: %+v", fs)
	})
}
