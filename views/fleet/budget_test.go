package fleet

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// runRound runs the commands of one refresh as bubbletea would (each in
// its own goroutine) and hands every answer to the model, returning it.
func runRound(m Model, cmd tea.Cmd) Model {
	var cmds []tea.Cmd
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		cmds = msg
	default:
		m, _ = m.Update(msg)
		return m
	}
	msgs := make([]tea.Msg, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		if c == nil {
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); msgs[i] = c() }()
	}
	wg.Wait()
	for _, msg := range msgs {
		if msg != nil {
			m, _ = m.Update(msg)
		}
	}
	return m
}

// TestFleetBudget: 50 saved stores behind the 50 ms latency proxy (one
// sqld holding the reference's rows, each store a name for it), two
// refreshes of the Fleet view: each refresh sends one request per store
// (counted by the proxy), at most Concurrency stores are read at once
// (counted at the open), every row is ok with the reference's figures,
// and the second refresh has a commit rate. The wall time is logged, not
// asserted.
func TestFleetBudget(t *testing.T) {
	srv := sqldtest.Start(t)
	storetest.CopyReferenceRows(t, srv.URL)
	proxy := sqldtest.StartProxy(t, srv.URL, 50*time.Millisecond)
	const n = 50
	var saved []tuiconfig.SavedStore
	for i := range n {
		saved = append(saved, tuiconfig.SavedStore{Name: "s" + strconv.Itoa(100+i), URL: proxy.URL})
	}
	var inFlight, most atomic.Int64
	m := New(Deps{
		Stores: func() ([]tuiconfig.SavedStore, error) { return saved, nil },
		Open: func(ctx context.Context, name string) (*store.Store, error) {
			most.Store(max(most.Load(), inFlight.Add(1)))
			return store.Open(ctx, proxy.URL, store.Options{ReadOnly: true, Unchecked: true})
		},
		Now: func() int64 { return storetest.T0 },
	}, viewtest.Styles())
	m.slotEnd = func() { inFlight.Add(-1) } // the open's count above starts a slot
	m, list := m.Open()
	m, refresh := m.Update(list())
	for round := 1; round <= 2; round++ {
		if round == 2 {
			refresh = m.Refresh()
		}
		start := time.Now()
		reqs := proxy.Count(func() { m = runRound(m, refresh) })
		took := time.Since(start)
		t.Logf("refresh %d: %d stores behind 50 ms: %d requests, at most %d read at once, %s", round, n, reqs, most.Load(), took.Round(time.Millisecond))
		if reqs > n {
			t.Errorf("refresh %d: %d requests for %d stores, want at most one per store", round, reqs, n)
		}
	}
	if most.Load() > Concurrency {
		t.Errorf("%d stores read at once, want at most %d", most.Load(), Concurrency)
	}
	for _, name := range m.names {
		r := m.rows[name]
		if st := r.state(time.Now()); st != "ok" || r.pulse.Rows != 60 || r.rate == nil {
			t.Fatalf("%s: %s, %+v, rate %v", name, st, r.pulse, r.rate)
		}
	}
}
