package cli_test

import (
	"testing"

	"kvdeck/internal/storetest"
)

// TestAlarmListTextTimesFixedWidth: `alarm list -o text` lines up the due
// times of a class's scheduled alarms: .100, .123 and a whole second take
// the same width.
func TestAlarmListTextTimesFixedWidth(t *testing.T) {
	run := textRunner(t, storetest.File().URL(t))
	for id, at := range map[string]string{"a0": "+1s", "a1": "+1100ms", "a2": "+1123ms"} {
		run("alarm", "set", "Cart", id, at)
	}
	want := "Cart  a0  scheduled  due=2026-01-02T00:00:01.000Z  retry=0\n" +
		"Cart  a1  scheduled  due=2026-01-02T00:00:01.100Z  retry=0\n" +
		"Cart  a2  scheduled  due=2026-01-02T00:00:01.123Z  retry=0\n"
	if got := run("alarm", "list"); got != want {
		t.Errorf("alarm list:\n%s\nwant\n%s", got, want)
	}
}
