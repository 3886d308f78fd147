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

// TestTickCarriesAFastReadOnly: a tick carries a version read that
// answers within tickRead; a slower one (a distant or hung server) does
// not hold the tick back: the tick comes without it, and its answer on
// the channel it carries.
func TestTickCarriesAFastReadOnly(t *testing.T) {
	fast := tickAfter(time.Millisecond, 1, func() versionRead { return versionRead{session: 7} })().(refreshTick)
	if fast.read == nil || fast.read.session != 7 || fast.pending != nil {
		t.Fatalf("a fast read: tick %+v, want the answer carried", fast)
	}
	release := make(chan struct{})
	start := time.Now()
	slow := tickAfter(time.Millisecond, 1, func() versionRead { <-release; return versionRead{session: 8} })().(refreshTick)
	if took := time.Since(start); slow.read != nil || slow.pending == nil || took > 5*tickRead {
		t.Fatalf("a slow read: tick %+v after %v, want it without the answer, soon", slow, took)
	}
	close(release)
	if v := <-slow.pending; v.session != 8 {
		t.Fatalf("the slow read's answer: %+v", v)
	}
}
