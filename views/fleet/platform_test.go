package fleet

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestFleetPlatformColumn: with Deps.Platform, a PLATFORM column shows
// what a store's platform said at its last read (a blocked store's too,
// whose pulse failed), on a screen wide enough; without a platform to
// ask for any store, or without Deps.Platform, there is no such column.
func TestFleetPlatformColumn(t *testing.T) {
	m := goldenFleet(t)
	if strings.Contains(m.View(200, 20), "PLATFORM") {
		t.Error("a PLATFORM column without Deps.Platform")
	}
	m.deps.Platform = func(context.Context, string) (string, error) { return "", nil }
	if strings.Contains(m.View(200, 20), "PLATFORM") {
		t.Error("a PLATFORM column while no store has a platform to ask")
	}
	wall := m.deps.Wall()
	m.rows["dev"].note(read{name: "dev", platform: "lag 3"}, wall.Add(time.Second))
	m.rows["staging"].note(read{name: "staging", err: context.DeadlineExceeded, platform: "blocked reads"}, wall.Add(time.Second))
	view := m.View(200, 20)
	if !strings.Contains(view, "PLATFORM") || !strings.Contains(view, "lag 3") || !strings.Contains(view, "blocked reads") {
		t.Errorf("the view lacks the platform column or its cells:\n%s", view)
	}
	if narrow := m.View(80, 20); strings.Contains(narrow, "PLATFORM") {
		t.Errorf("an 80-cell screen keeps the PLATFORM column (it goes first):\n%s", narrow)
	}
}
