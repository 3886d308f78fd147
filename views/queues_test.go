package views

import (
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// newQueuesHarness runs a focused Queues view over s at w x h. A poll
// waiting for the operator's decisions is parked: settle does not wait
// for it.
func newQueuesHarness(t *testing.T, s *store.Store, clock *store.VirtualClock, w, h int) *coordHarness[Queues] {
	t.Helper()
	hs := startCoord[Queues, *Queues](t, s, clock, w, h, NewQueues)
	hs.parked = func(m Queues) int {
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
	s, clock, _ := coordStoreAt(t)
	seedCoordAnomalies(t, s, clock)
	h := newQueuesHarness(t, s, clock, 120, 37)
	t.Run("queues", func(t *testing.T) { golden.RequireEqual(t, h.m.View()) })
	h.keys("l", "j", "j")
	t.Run("messages", func(t *testing.T) { golden.RequireEqual(t, h.m.View()) })
	h.keys("enter")
	t.Run("peek", func(t *testing.T) { golden.RequireEqual(t, h.m.View()) })
	h.keys("esc", "c", "a", "r", "enter")
	t.Run("poll", func(t *testing.T) { golden.RequireEqual(t, h.m.View()) })
	h.keys("enter")
	h.confirm()
	t.Run("report", func(t *testing.T) { golden.RequireEqual(t, h.m.View()) })
	t.Run("80x24", func(t *testing.T) {
		h := newQueuesHarness(t, s, clock, 80, 21)
		h.keys("l")
		golden.RequireEqual(t, h.m.View())
	})
	t.Run("reference", func(t *testing.T) {
		s, clock, _ := viewtest.Reference(t, true)
		h := newQueuesHarness(t, s, clock, 120, 37)
		h.keys("l")
		golden.RequireEqual(t, h.m.View())
	})
}
