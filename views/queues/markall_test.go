package queues

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

// seedBig writes n messages to the queue "big", due after the clock.
func seedBig(t *testing.T, s *store.Store, clock *store.VirtualClock, n int) {
	t.Helper()
	sets := make([]store.Mutation, n)
	for i := range sets {
		sets[i] = store.Mutation{Type: store.MutationSet, Key: coord.QueueKey("big", clock.Now()+60000+int64(i), fmt.Sprintf("m-%05d", i)),
			Value: []byte(fmt.Sprintf(`{"body":{"n":%d},"attempts":0}`, i))}
	}
	if _, err := s.SetMany(context.Background(), sets); err != nil {
		t.Fatal(err)
	}
}

// TestQueuesMarkAllQueue: in a queue of 450 messages (200 shown), ctrl+a
// marks the shown and offers the rest, ctrl+a again marks all 450 (each
// with its stamp and value), and ctrl+a once more clears.
func TestQueuesMarkAllQueue(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	seedBig(t, s, clock, 450)
	h := newQueuesHarness(t, s, clock, 120, 37)
	h.Keys("l", "ctrl+a")
	if h.M.marks.Len() != 200 {
		t.Fatalf("ctrl+a: %d marked, want the 200 shown", h.M.marks.Len())
	}
	h.RequireFlash("200 of 450 marked · ctrl+a again: all 450 in the queue")
	h.Keys("ctrl+a")
	if h.M.marks.Len() != 450 || h.M.Busy() {
		t.Fatalf("ctrl+a again: %d marked (busy %v), want 450", h.M.marks.Len(), h.M.Busy())
	}
	h.RequireFlash("450 marked: every message of big")
	for _, mk := range h.M.marks.List() {
		e, ok, err := s.Get(context.Background(), mk.Key)
		if err != nil || !ok || e.Versionstamp() != mk.Stamp || string(e.Value) != string(mk.Value) {
			t.Fatalf("mark %+v: the row is %v %v %v", mk, e, ok, err)
		}
	}
	h.Keys("ctrl+a")
	if h.M.marks.Len() != 0 {
		t.Fatalf("ctrl+a a third time: %d marked, want none", h.M.marks.Len())
	}
	h.Keys("ctrl+a")
	if h.M.marks.Len() != 200 {
		t.Fatalf("ctrl+a after the clear: %d marked, want the 200 shown", h.M.marks.Len())
	}
}

// TestQueuesMarkAllEscStops: esc while the queue is being read stops it:
// the page in flight is dropped and the marks made stay.
func TestQueuesMarkAllEscStops(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	seedBig(t, s, clock, 450)
	h := newQueuesHarness(t, s, clock, 120, 37)
	h.Keys("l", "ctrl+a")
	m, cmd := h.M.Update(viewtest.Key("ctrl+a"))
	if !m.Busy() || cmd == nil {
		t.Fatal("ctrl+a again did not start reading the queue")
	}
	m, _ = m.Update(viewtest.Key("esc"))
	if m.Busy() {
		t.Fatal("esc did not stop the reading")
	}
	if p, ok := cmd().(markPage); ok { // the page in flight lands after esc
		m, _ = m.Update(p)
	}
	if m.marks.Len() != 200 {
		t.Fatalf("after esc: %d marked, want the 200 marked before", m.marks.Len())
	}
}

// TestQueuesMarkAllBounds: a queue of more messages than the marks hold
// is refused, and marking stops once the marks hold the bytes bound.
func TestQueuesMarkAllBounds(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	seedBig(t, s, clock, 450)
	h := newQueuesHarness(t, s, clock, 120, 37)
	h.M.markMax.count = 300
	h.Keys("l", "ctrl+a", "ctrl+a")
	h.RequireFlash("big holds 450 messages", "at most 300 are marked at once")
	if h.M.marks.Len() != 200 {
		t.Fatalf("refused: %d marked, want the 200 shown", h.M.marks.Len())
	}
	h.M.markMax = markBounds{count: 100000, bytes: 10000}
	h.Keys("ctrl+a")
	h.RequireFlash("marking stopped at", "act on these (;)")
	if n := h.M.marks.Len(); n <= 200 || n >= 450 || h.M.Busy() {
		t.Fatalf("bytes bound: %d marked (busy %v), want between 200 and 450", n, h.M.Busy())
	}
}

// TestQueuesMarkAllProgressInTheView: how far the marking has come is
// drawn under the messages while it reads, and never flashed: a progress
// flash could arrive after the end's line and replace it (the tui's
// TestFlowMarkAllQueueRetry saw "marking 2,000 of 3,000…" after the end
// under load, and never "3,000 marked").
func TestQueuesMarkAllProgressInTheView(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	seedBig(t, s, clock, 400)
	h := newQueuesHarness(t, s, clock, 120, 37)
	h.Keys("l", "ctrl+a")
	m, cmd := h.M.Update(viewtest.Key("ctrl+a"))
	if !strings.Contains(m.View(), "marking 200 of 400… esc stops") {
		t.Fatalf("the marking under way is not drawn:\n%s", m.View())
	}
	h.M = m
	h.Settle(cmd)
	for _, f := range h.Flashes {
		if strings.Contains(f.Text, "esc stops") {
			t.Errorf("a progress flash: %q", f.Text)
		}
	}
	h.RequireFlash("400 marked: every message of big")
	if strings.Contains(h.M.View(), "esc stops") {
		t.Errorf("the progress line stays after the end:\n%s", h.M.View())
	}
}
