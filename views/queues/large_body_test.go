package queues

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

// frameBytes is what one View allocates.
func frameBytes(m Model) uint64 {
	var before, after runtime.MemStats
	_ = m.View() // a first frame may prepare what it shows
	runtime.GC()
	runtime.ReadMemStats(&before)
	_ = m.View()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLargeBodyFrames: a queue holding a 20 MB message draws its list and
// a peek of the message with what is on screen only (the list escaped and
// normalised every body whole each frame, the peek re-wrapped it whole).
func TestLargeBodyFrames(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, "file:"+filepath.Join(t.TempDir(), "q.db"), clock, false)
	body := `{"blob":"` + strings.Repeat("x", 20<<20) + `"}`
	if _, err := coord.Send(context.Background(), s, "big", []byte(body), 0); err != nil {
		t.Fatal(err)
	}
	h := newQueuesHarness(t, s, clock, 120, 37)
	h.Keys("l")
	if b := frameBytes(h.M); b > 4<<20 {
		t.Errorf("the message list allocates %d bytes per frame", b)
	}
	h.Keys("enter")
	h.RequireView("value truncated at 65536 of")
	b := frameBytes(h.M)
	t.Logf("peek of a %d-byte body: %d bytes per frame", len(body), b)
	if b > 4<<20 {
		t.Errorf("the peek allocates %d bytes per frame", b)
	}
}

// TestLargeBodyFirstVisit: the first visit of a store whose queue holds
// a 20 MB message: taking the inspection (Update) and drawing the queue
// list, then the message list (View), allocate a small part of the body,
// not the body whole. The inspection itself runs in
// a command, off the UI path; its cost is logged, not counted.
func TestLargeBodyFirstVisit(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, "file:"+filepath.Join(t.TempDir(), "q.db"), clock, false)
	body := `{"blob":"` + strings.Repeat("x", 20<<20) + `"}`
	if _, err := coord.Send(context.Background(), s, "big", []byte(body), 0); err != nil {
		t.Fatal(err)
	}
	h := newQueuesHarness(t, s, clock, 120, 37)
	m := h.M
	var msg tea.Msg
	began := time.Now()
	read := viewtest.Allocated(func() { msg = m.LoadCmd()() })
	took := time.Since(began).Round(time.Millisecond)
	var next Model
	update := viewtest.Allocated(func() { next, _ = m.Update(msg) })
	view := viewtest.Allocated(func() { _ = next.View() })
	t.Logf("a %d-byte body: inspection (off the UI path) %s, %d bytes; Update %d bytes; first frame %d bytes", len(body), took, read, update, view)
	if !strings.Contains(next.View(), "big") {
		t.Fatalf("the queue is not shown:\n%s", next.View())
	}
	if update > 4<<20 || view > 4<<20 {
		t.Errorf("Update allocated %d bytes, the first frame %d bytes", update, view)
	}
}
