package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/themes"
)

// TestLockedReadFlashedOnce: the TUI covers stderr, where the commands
// say that kvdeck reads a rollback-journal file with SQLite's locks; it
// shows the store's word (store.LockedReadNote) on the flash line and in
// the log, once, however many refreshes read the file so.
func TestLockedReadFlashedOnce(t *testing.T) {
	path := storetest.NewHotJournal(t, 50)
	clock := store.NewVirtualClock(func() int64 { return storetest.T0 })
	s := storetest.Open(t, "file:"+path, store.Options{Clock: clock.Now})
	m := newModel(s, Config{Clock: clock, Refresh: 100 * time.Millisecond}, themes.NewStyles(themes.Dark()), func(string) error { return nil })
	a := &app{t: t, s: s, clock: clock, tm: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(200, 30))}
	a.waitFor(`"bulk"`, "is a rollback-journal file, and kvdeck now reads it with SQLite's locks")
	time.Sleep(500 * time.Millisecond) // more refreshes read with locks
	final := a.final()
	n := 0
	for _, e := range final.flash.log {
		if strings.Contains(e.msg.Text, "kvdeck now reads it with SQLite's locks") {
			n++
		}
	}
	if n != 1 || s.LockedReads() < 2 {
		t.Errorf("the note was shown %d times over %d reads with locks; want once", n, s.LockedReads())
	}
}
