package tui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/store"
	"kvdeck/views"
)

// versionTimeout bounds the change-detection read of one tick.
const versionTimeout = 3 * time.Second

// refreshState is the live refresh: a tick re-armed on receipt and tagged
// with gen; pausing or changing the interval raises gen, which retires
// the tick in flight.
type refreshState struct {
	interval time.Duration // 0 = off
	paused   bool
	gen      int
	reading  bool // a version read is in flight
	known    bool // version holds a read
	version  store.Version
	// failed: the last version read failed. What the tabs loaded
	// meanwhile may be an error, and seq standing still would never
	// re-read it: the first read that succeeds re-reads the visible tab
	// and marks the others for a re-read when shown.
	failed bool
	// clock: the clock tick chain runs. It stops while the refresh ticks
	// at least once a second (each tick re-renders: a second chain would
	// only double the renders of an idle screen) and starts again when
	// the refresh is paused or slowed.
	clock bool
}

// ticksEachSecond reports whether the refresh re-renders at least once a
// second by itself.
func (r *refreshState) ticksEachSecond() bool {
	return r.interval > 0 && r.interval <= time.Second && !r.paused
}

// onClock re-arms the clock tick unless the refresh renders as often.
func (r *refreshState) onClock() tea.Cmd {
	if r.ticksEachSecond() {
		r.clock = false
		return nil
	}
	return secondTick()
}

// restartClock re-arms the clock tick when it stopped and the refresh no
// longer renders each second.
func (r *refreshState) restartClock() tea.Cmd {
	if r.clock || r.ticksEachSecond() {
		return nil
	}
	r.clock = true
	return secondTick()
}

// unread marks what a tab showed as read at no version: the next look
// re-reads it whatever the store's version.
var unread = store.Version{Seq: -1, Rows: -1}

// failer is a tab that says whether its last load failed (the
// coordination tabs); the next tick that reads the store re-reads it.
type failer interface{ Failed() bool }

// failedTab reports whether tab t says its last load failed.
func (m model) failedTab(t tab) bool {
	f, ok := m.tabs.view(t).(failer)
	return ok && f.Failed()
}

// refreshTick is one live-refresh tick of generation gen. read is the
// store's version when the tick was armed to read it: the tick's own
// command reads it when the tick fires, so an idle tick is one message
// (one render), not a tick and then an answer.
type refreshTick struct {
	gen     int
	read    *versionRead
	pending <-chan versionRead // the read when it was slower than tickRead
}

// clockTick re-renders once a second so countdowns move; it reads nothing.
type clockTick struct{}

// versionRead answers readVersion.
type versionRead struct {
	session int
	version store.Version
	err     error
}

// tickRead is how long a tick waits for the version it reads before it
// goes without it: a file answers in a millisecond, and a slow or
// unreachable server must not slow the ticks (the Fleet view refreshes
// on them).
const tickRead = 50 * time.Millisecond

// tickAfter arms a refresh tick; an interval of 0 arms nothing. With
// read, the tick's command (not the UI goroutine) reads the version when
// the timer fires: the tick carries it, or, when it takes longer than
// tickRead, the channel it will arrive on.
func tickAfter(d time.Duration, gen int, read func() versionRead) tea.Cmd {
	if d <= 0 {
		return nil
	}
	return tea.Tick(d, func(time.Time) tea.Msg {
		t := refreshTick{gen: gen}
		if read == nil {
			return t
		}
		ch := make(chan versionRead, 1)
		go func() { ch <- read() }()
		wait := time.NewTimer(tickRead)
		defer wait.Stop()
		select {
		case v := <-ch:
			t.read = &v
		case <-wait.C:
			t.pending = ch
		}
		return t
	})
}

func secondTick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return clockTick{} })
}

// readVersion reads the store's change fingerprint (seq and row count).
func readVersion(s *store.Store, session int) tea.Cmd {
	read := versionReader(s, session)
	return func() tea.Msg { return read() }
}

// versionReader reads the version of s for session, within versionTimeout.
func versionReader(s *store.Store, session int) func() versionRead {
	return func() versionRead {
		ctx, cancel := context.WithTimeout(context.Background(), versionTimeout)
		defer cancel()
		v, err := s.Version(ctx)
		return versionRead{session: session, version: v, err: err}
	}
}

// onTick takes the version the tick read, if any, and re-arms the tick,
// to read the version when it fires unless a read or a view load is in
// flight now (then that round reads nothing). A version read while the
// view began loading is left for the next tick.
func (m model) onTick(msg refreshTick) (tea.Model, tea.Cmd) {
	r := &m.refresh
	if msg.gen != r.gen || r.paused {
		return m, nil
	}
	var out tea.Cmd
	switch {
	case msg.pending != nil:
		// A slow read: its answer comes as a versionRead of its own.
		r.reading = true
		out = func() tea.Msg { return <-msg.pending }
	case msg.read != nil && !m.tabs.view(m.tab).Busy():
		var next tea.Model
		next, out = m.onVersion(*msg.read)
		m = next.(model)
	}
	var read func() versionRead
	if !r.reading && !m.tabs.view(m.tab).Busy() {
		read = versionReader(m.store, m.session)
	}
	return m, tea.Batch(out, tickAfter(r.interval, r.gen, read))
}

// onVersion asks the visible view to reload when seq or the row count
// moved.
func (m model) onVersion(msg versionRead) (tea.Model, tea.Cmd) {
	if msg.session != m.session {
		return m, nil
	}
	m, note := m.noteLockedReads()
	m, out := m.onVersionRead(msg)
	return m, tea.Batch(note, out)
}

// noteLockedReads shows, once, what the store said when it first read a
// rollback-journal file with SQLite's locks (store.LockedReadNote): the
// CLI prints it on stderr, which the TUI covers.
func (m model) noteLockedReads() (model, tea.Cmd) {
	text := m.store.LockedReadNote()
	if text == "" || text == m.lockNoted {
		return m, nil
	}
	m.lockNoted = text
	return m, m.flash.show(views.FlashMsg{Level: views.FlashError, Text: text})
}

// onVersionRead is onVersion for an answer of this session.
func (m model) onVersionRead(msg versionRead) (model, tea.Cmd) {
	r := &m.refresh
	r.reading = false
	if msg.err != nil {
		var out tea.Cmd
		if text := msg.err.Error(); text != m.lastErr {
			// The newest message: it takes the flash line from an older
			// one, which would contradict it; the
			// status bar keeps it while it lasts.
			out = m.flash.show(views.FlashMsg{Level: views.FlashError, Text: "refresh: " + text})
		}
		m.lastErr = msg.err.Error()
		r.failed = true
		return m, out
	}
	m.lastErr = ""
	m.rate.note(msg.version, m.wall())
	first := !r.known
	r.known, r.version = true, msg.version
	if r.failed || m.failedTab(m.tab) {
		// The store answers again: re-read what an error may have
		// replaced, though seq stood still.
		if r.failed {
			for t := range numTabs {
				m.seen[t] = unread
			}
		}
		r.failed = false
		m.seen[m.tab] = msg.version
		out := m.tabs.refresh(m.tab)
		return m, out
	}
	if first {
		// The views loaded at start; this read only sets the baseline.
		for t := range numTabs {
			m.seen[t] = msg.version
		}
		return m, nil
	}
	if m.seen[m.tab] == msg.version {
		return m, nil
	}
	m.seen[m.tab] = msg.version
	out := m.tabs.refresh(m.tab)
	return m, out
}

// togglePause stops or resumes the live refresh.
func (m *model) togglePause() tea.Cmd {
	m.refresh.paused = !m.refresh.paused
	m.refresh.gen++
	if m.refresh.paused {
		return m.refresh.restartClock()
	}
	return m.rearm()
}

// setInterval changes the refresh interval (0 turns it off).
func (m *model) setInterval(d time.Duration) tea.Cmd {
	m.refresh.interval, m.refresh.paused = d, false
	m.refresh.gen++
	return tea.Batch(m.rearm(), m.refresh.restartClock())
}

// rearm starts a new tick chain and checks for changes at once.
func (m *model) rearm() tea.Cmd {
	if m.refresh.interval <= 0 {
		return nil
	}
	var read tea.Cmd
	if !m.refresh.reading {
		m.refresh.reading = true
		read = readVersion(m.store, m.session)
	}
	return tea.Batch(read, tickAfter(m.refresh.interval, m.refresh.gen, nil))
}
