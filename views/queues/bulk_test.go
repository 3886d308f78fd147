package queues

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/views/viewtest"
)

// TestQueuesMarks: space marks the selected message and moves down (a
// mark column, "N marked"), space again unmarks, ctrl+a marks every
// message shown and again clears, and B asks the root for the queue
// actions over the marked messages, with a unit per message.
func TestQueuesMarks(t *testing.T) {
	s, clock, _ := viewtest.CoordAnomalies(t)
	viewtest.EachScreen(t, []viewtest.Screen{viewtest.Wide(), {W: 80, H: 24}}, newQueuesHarness, s, clock, func(h *viewtest.Harness[Model]) {
		h.Keys("l", " ", " ")
		h.RequireView("2 marked", "✓")
		golden.RequireEqual(h.T, h.M.View())
		h.Keys(";")
		if len(h.Bulks) != 1 || len(h.Bulks[0].Keys) != 2 {
			h.T.Fatalf("B: %+v", h.Bulks)
		}
		var names []string
		for _, a := range h.Bulks[0].Actions {
			names = append(names, a.Key+" "+a.Name)
			if !a.Copy && len(a.Units) != 2 {
				h.T.Errorf("%s: %d units, want 2", a.Name, len(a.Units))
			}
		}
		if got := strings.Join(names, ", "); got != "r retry now, x dead-letter, d delete, y copy keys" {
			h.T.Errorf("actions: %s", got)
		}
	})
	h := newQueuesHarness(t, s, clock, 120, 37)
	h.Keys("l", " ", "k", " ")
	if h.M.marks.Len() != 0 {
		t.Fatalf("space twice on one message: %d marked", h.M.marks.Len())
	}
	h.Keys("ctrl+a")
	q, _ := h.M.queue()
	if n := len(h.M.shownMessages(q)); h.M.marks.Len() != n || n == 0 {
		t.Fatalf("ctrl+a: %d marked of %d shown", h.M.marks.Len(), n)
	}
	h.Keys("ctrl+a")
	if h.M.marks.Len() != 0 {
		t.Fatalf("ctrl+a again: %d marked", h.M.marks.Len())
	}
}

// TestQueuesMarkedAgreesWithTheMarks: "N marked" counts what is there: a
// marked message delivered meanwhile (deleted by another program) loses
// its mark at the next load, and marks in another queue are said apart
// ("(1 not shown)"). The count kept the delivered ones: 3 marked, one
// mark visible.
func TestQueuesMarkedAgreesWithTheMarks(t *testing.T) {
	s, clock, _ := viewtest.CoordAnomalies(t)
	h := newQueuesHarness(t, s, clock, 120, 37)
	h.Keys("l", " ", " ", " ")
	q, _ := h.M.queue()
	if h.M.marks.Len() != 3 || len(q.Messages) < 3 {
		t.Fatalf("%d marked of %d", h.M.marks.Len(), len(q.Messages))
	}
	for _, msg := range q.Messages[:2] {
		if err := s.Delete(viewtest.Ctx, msg.Key); err != nil {
			t.Fatal(err)
		}
	}
	h.Refresh()
	h.RequireView("1 marked")
	if h.M.marks.Len() != 1 {
		t.Fatalf("after the delivery %d marked, want 1", h.M.marks.Len())
	}
	h.Keys("h", "j", "l")
	if q2, _ := h.M.queue(); q2.Name == q.Name {
		t.Fatal("the fixture has one queue")
	}
	h.RequireView("1 marked (1 not shown)")
}
