package tui

import (
	"testing"
	"time"
)

// TestClockTickStopsWhileTheRefreshRenders: an idle screen renders once
// per refresh tick (and its answer); the clock tick, which only
// re-renders, stops while the refresh ticks at least once a second and
// comes back, once, when the refresh is paused, slowed or turned off.
func TestClockTickStopsWhileTheRefreshRenders(t *testing.T) {
	m := model{refresh: refreshState{interval: time.Second, clock: true}}
	if cmd := m.refresh.onClock(); cmd != nil || m.refresh.clock {
		t.Fatal("the clock tick re-armed beside a refresh of one second")
	}
	if cmd := m.togglePause(); cmd == nil || !m.refresh.clock {
		t.Fatal("pausing the refresh did not restart the clock tick")
	}
	if cmd := m.refresh.restartClock(); cmd != nil {
		t.Fatal("a second clock chain was started")
	}
	if cmd := m.refresh.onClock(); cmd == nil {
		t.Fatal("the clock tick stopped while the refresh is paused")
	}
	m.togglePause() // resumed: the next clock tick stops its chain
	if cmd := m.refresh.onClock(); cmd != nil || m.refresh.clock {
		t.Fatal("the clock tick kept running beside the resumed refresh")
	}
	m.setInterval(5 * time.Second)
	if !m.refresh.clock {
		t.Fatal("a refresh slower than a second left the clock tick stopped")
	}
	m = model{refresh: refreshState{interval: 0, clock: true}}
	if cmd := m.refresh.onClock(); cmd == nil {
		t.Fatal("with the refresh off the clock tick stopped")
	}
}
