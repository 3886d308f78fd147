package queues

import (
	"context"
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

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
	for _, c := range cmd().(tea.BatchMsg) {
		if p, ok := c().(markPage); ok {
			m, _ = m.Update(p)
		}
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

// TestQueuesMarkAllProgressComesFirst: a progress line that arrives after
// the marking is over shows nothing, so it cannot replace the line the
// end left (the two were sent at once: TestQueuesMarkAllBounds once saw
// "marking 200 of 450…" after "marking stopped at …").
func TestQueuesMarkAllProgressComesFirst(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	seedBig(t, s, clock, 400)
	h := newQueuesHarness(t, s, clock, 120, 37)
	h.M.markMax = markBounds{count: 100000, bytes: 10000}
	h.Keys("l", "ctrl+a", "ctrl+a")
	h.RequireFlash("marking stopped at", "act on these (;)")
	before := len(h.Flashes)
	h.Send(markProgress{session: h.M.Deps.Session, gen: h.M.markGen}) // the late one
	if len(h.Flashes) != before {
		t.Fatalf("a progress line after the end: %q", h.Flashes[len(h.Flashes)-1].Text)
	}
}
