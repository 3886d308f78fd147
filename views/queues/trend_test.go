package queues

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/storetest"
	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

// TestQueueTrend: each load of the session adds the queue's depth and
// oldest ready age to its charts, on the fixed clock; a queue emptied by
// another writer charts a zero instead of freezing at its last depth.
func TestQueueTrend(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	ctx := storetest.Ctx(t)
	h := newQueuesHarness(t, s, clock, 100, 24)
	h.RequireView("No messages in any queue")
	for i := range 4 {
		for range i + 1 {
			if _, err := coord.Send(ctx, s, "jobs", []byte(`{"n": 1}`), 0); err != nil {
				t.Fatal(err)
			}
		}
		clock.Fix(clock.Now() + 2000)
		h.Refresh()
	}
	if l := h.ViewLine("session depth"); !strings.Contains(l, "▂▂▅█ 10 ·") || !strings.Contains(l, "▂▄▆█ 8s") {
		t.Errorf("after four loads of a growing queue: %q", l)
	}
	// The message ids are random: the golden is the part above them.
	top := strings.Split(h.M.View(), "\n")[:5]
	golden.RequireEqual(t, strings.Join(top, "\n")+"\n")
	if _, err := coord.Purge(ctx, s, "jobs"); err != nil {
		t.Fatal(err)
	}
	h.Refresh()
	if h.M.trends["jobs"].depth.Len() != 5 {
		t.Errorf("the emptied queue has %d samples, want 5", h.M.trends["jobs"].depth.Len())
	}
}
