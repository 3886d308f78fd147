package queues

import (
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// newQueuesHarness runs a focused Queues view over s at w x h. A poll
// waiting for the operator's decisions is parked: settle does not wait
// for it.
func newQueuesHarness(t *testing.T, s *store.Store, clock *store.VirtualClock, w, h int) *viewtest.Harness[Model] {
	t.Helper()
	hs := viewtest.Start[Model, *Model](t, s, clock, w, h, New)
	hs.Parked = func(m Model) int {
		if m.poll != nil && m.poll.phase == pollDeciding {
			return 1
		}
		return 0
	}
	return hs
}

// TestQueuesGolden: every queue anomaly at 120x40 on a fixed clock (old
// ready messages, a redelivered one, one on its final attempt, a
// malformed row), the message list, a peek and a claimed batch with one
// decision of each kind; and the reference store.
func TestQueuesGolden(t *testing.T) {
	h := viewtest.Seeded(t, newQueuesHarness)
	t.Run("queues", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	h.Keys("l", "j", "j")
	t.Run("messages", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	h.Keys("enter")
	t.Run("peek", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	h.Keys("esc", "t")
	h.Confirm()
	h.Keys("a", "e", "enter")
	t.Run("poll", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	h.Keys("enter")
	h.Confirm()
	t.Run("report", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	viewtest.EachScreen(t, viewtest.SmallScreens(), newQueuesHarness, h.S, h.Clock, viewtest.GoldenAfter[Model]("l"))
	t.Run("reference", func(t *testing.T) {
		viewtest.GoldenAfter[Model]("l")(viewtest.OnReference(t, newQueuesHarness, true))
	})
}
