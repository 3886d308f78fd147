package activity

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// TestLargeValueOnTheUIPath: a 20 MB value (2 MB on sqld) set, then set
// again, while
// the tab is open: taking the page the store read (Update) and drawing
// the first frames with the new row selected (View: the list's change
// cell, the detail's diff) allocate a small part of the value, not the
// value whole. The store's read runs in a command,
// off the UI path, and is not counted.
func TestLargeValueOnTheUIPath(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		clock := viewtest.FixedClock()
		s := storetest.Open(t, url, store.Options{Clock: clock.Now, Create: true})
		h := newActivityHarness(t, s, clock, 120, 40)
		ctx := storetest.Ctx(t)
		// Update and two frames may allocate less than the value (a copy
		// of it whole fails); two frames alone take about 1 MB.
		size, most := 20<<20, uint64(4<<20)
		if b.Name != "file" {
			// sqld refuses a 10 MB argument ("string or blob too big"),
			// and under -race on a loaded machine reading 4 MB over HTTP
			// once took longer than the tab's read deadline (10 s).
			size, most = 2<<20, 3<<19
		}
		for round, fill := range []string{"x", "y", "z"} {
			value := []byte(`{"blob":"` + strings.Repeat(fill, size) + `"}`)
			if _, err := s.Set(ctx, viewtest.KeyOf("big"), value, nil); err != nil {
				t.Fatal(err)
			}
			// Round 0 is the first read of a tab opened with the row in
			// its backlog; the next ones find it set again.
			m := h.M
			var msg tea.Msg
			began := time.Now()
			read := viewtest.Allocated(func() {
				msg = readFeed(s, m.deps.Session, m.gen, m.f.c.Next(recheckFile), m.tune.pageRows, m.deps.Now(), round == 0, 0)()
			})
			t.Logf("round %d: the store's read (a command, off the UI path): %s, %d bytes", round, time.Since(began).Round(time.Millisecond), read)
			var next Model
			update := viewtest.Allocated(func() { next, _ = m.Update(msg) })
			view := viewtest.Allocated(func() { _ = next.View(); _ = next.View() })
			t.Logf("round %d: a %d-byte value: Update %d bytes, two frames %d bytes", round, len(value), update, view)
			if !strings.Contains(next.View(), `["big"]`) {
				t.Fatalf("the row is not shown:\n%s", next.View())
			}
			if update > most || view > most {
				t.Errorf("round %d: Update allocated %d bytes, two frames %d bytes for a %d-byte value", round, update, view, len(value))
			}
			h.M = next
		}
	})
}
