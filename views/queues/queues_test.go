package queues

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/store/coord"
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

// TestQueuesDueReadsOnSmallScreens: at 60x18 and 80x24, messages with
// uuid ids keep their DUE whole ("in 5s", not "rea…"): the id narrows
// (keeping both ends) and the body gives way.
func TestQueuesDueReadsOnSmallScreens(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	ctx := storetest.Ctx(t)
	for i, delay := range []time.Duration{0, 5 * time.Second, 90 * time.Second} {
		if _, err := coord.Send(ctx, s, "emails", []byte(fmt.Sprintf(`{"template":"welcome","n":%d}`, i)), delay); err != nil {
			t.Fatal(err)
		}
	}
	viewtest.EachScreen(t, viewtest.SmallScreens(), newQueuesHarness, s, clock, func(h *viewtest.Harness[Model]) {
		h.Keys("l")
		for _, due := range []string{"in 5s ", "in 1m30s "} {
			if line := h.ViewLine(due); !strings.Contains(line, "…") {
				h.T.Errorf("no end of the id beside %q:\n%s", due, line)
			}
		}
	})
}
