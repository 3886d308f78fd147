//go:build largedata

package tui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	kvhist "kvdeck/internal/history"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
)

// TestLockMatrixLarge: every tab and every overlay that reads, left open
// and used on a live service's file (a rollback journal, 350,000 rows)
// beside a reference-shaped writer that commits every 10 ms with no busy
// timeout, costs the writer no commit: the TUI as a user runs it (the
// live refresh every second, the keys of each surface pressed again and
// again), the store saved as "svc" (the Fleet view, the picker) and
// journaled (z), in group live (the fleet mode of Leases, Alarms and
// Queues reads it as a member). The surfaces come from tabTable and GlobalKeys
// (TestLockMatrixCoversTabsAndOverlays); the commands' matrix is
// internal/cli's TestLockMatrixLarge.
func TestLockMatrixLarge(t *testing.T) {
	var surfaces []storetest.Surface
	for _, sf := range tuiMatrix() {
		surfaces = append(surfaces, sf.surface())
	}
	storetest.LockMatrix(t, surfaces)
}

// surface runs the TUI on the copy at path: opens the surface, then
// presses its keys in turn, one every 700 ms, until ctx ends.
func (sf tuiSurface) surface() storetest.Surface {
	saved := map[string]savedStores{}
	return storetest.Surface{
		Name: "TUI " + sf.name,
		Setup: func(t *testing.T, path string) {
			t.Helper()
			dir := t.TempDir()
			conf := filepath.Join(dir, "config.toml")
			if err := os.WriteFile(conf, []byte(fmt.Sprintf("[stores.svc]\nurl = %q\nread_only = false\ngroup = \"live\"\n", "file:"+path)), 0o600); err != nil {
				t.Fatal(err)
			}
			c := savedStores{path: conf, journals: filepath.Join(dir, "state"), clock: store.NewVirtualClock(nil)}
			c.seed(t, "svc", `["kvdeck", "note"]`) // an entry in the journal (z)
			if sf.past {
				c.machine = recordedPast(t, path, c.clock)
			}
			saved[path] = c
		},
		Run: func(ctx context.Context, t *testing.T, path string, lockedNotes *int) error {
			t.Helper()
			c := saved[path]
			s, entry, err := c.open(ctx, "svc")
			if err != nil {
				return err
			}
			defer s.Close()
			cfg := Config{Clock: c.clock, Refresh: time.Second, Stores: c.list, OpenStore: c.open, OpenProbe: c.openProbe, Current: entry}
			if m := c.machine; m != nil {
				cfg.TimeMachine = func(context.Context) (*kvhist.Machine, error) { return m, nil }
			}
			m := newModel(s, cfg, themes.NewStyles(themes.Dark()), func(string) error { return nil })
			a := &app{t: t, s: s, clock: c.clock, tm: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40))}
			first := append([]string{"svc", "seq "}, sf.ready...)
			if len(sf.open) == 0 {
				first = append(first, sf.shows...)
			}
			if err := shows(a, first); err != nil {
				a.final()
				return err
			}
			if len(sf.open) > 0 {
				a.keys(sf.open...)
				if sf.typed != "" {
					a.tm.Type(sf.typed)
				}
				if sf.past {
					a.keys("enter")
				}
				if err := shows(a, sf.shows); err != nil {
					a.final()
					return err
				}
			}
			for i := 0; ; i++ {
				select {
				case <-ctx.Done():
				case <-time.After(700 * time.Millisecond):
					if len(sf.use) > 0 {
						a.keys(sf.use[i%len(sf.use)])
					}
					continue
				}
				break
			}
			final := a.final()
			if final.tm.past != nil {
				defer final.tm.past.Close(context.Background())
			} else if final.store != s {
				defer final.store.Close()
			}
			// The store's own word: a note the flash line had no time to
			// show (a tab busy at every tick) counts too.
			if note := s.LockedReadNote(); note != "" {
				t.Logf("the store said: %s (lock-free reads %+v, %d locked)", note, s.LockFreeCounts(), s.LockedReads())
				*lockedNotes++
			}
			var errs []string
			for _, e := range final.flash.log {
				switch {
				case strings.Contains(e.msg.Text, "kvdeck now reads it with SQLite's locks"):
				case e.msg.Level == views.FlashError:
					errs = append(errs, e.msg.Text)
				}
			}
			if final.lastErr != "" {
				errs = append(errs, "refresh: "+final.lastErr)
			}
			if len(errs) > 0 {
				return fmt.Errorf("the TUI said: %s", strings.Join(errs, "; "))
			}
			return nil
		},
	}
}

// shows waits until the screen has drawn every text (in output written
// since the last wait), for at most a minute.
func shows(a *app, texts []string) error {
	var seen []byte
	buf := make([]byte, 64<<10)
	for end := time.Now().Add(time.Minute); time.Now().Before(end); {
		n, _ := a.tm.Output().Read(buf)
		seen = append(seen, buf[:n]...)
		missing := ""
		for _, t := range texts {
			if !bytes.Contains(seen, []byte(t)) {
				missing = t
			}
		}
		if missing == "" {
			return nil
		}
		if n == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return fmt.Errorf("the screen never showed all of %q", texts)
}

// recordedPast records the store at path as one point of a kvdeck
// record history (every row, as record's first poll) beside it, read
// back through a time machine restoring into a private directory.
func recordedPast(t *testing.T, path string, clock *store.VirtualClock) *kvhist.Machine {
	t.Helper()
	s, err := store.Open(context.Background(), "file:"+path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, err := kvhist.OpenRecording(filepath.Join(t.TempDir(), "svc.history.db"), "file:"+path, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rec.Close() })
	recordPoll(t, rec, s, storetest.T0)
	return &kvhist.Machine{Source: kvhist.RecordingSource{R: rec}, Dir: restoreDir(t),
		Open: func(ctx context.Context, url, token string) (*store.Store, error) {
			return store.Open(ctx, url, store.Options{ReadOnly: true, Clock: clock.Now})
		}}
}
