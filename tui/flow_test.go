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

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

// app is the TUI running in a test program over a store.
type app struct {
	t     *testing.T
	tm    *teatest.TestModel
	s     *store.Store
	clock *store.VirtualClock
}

// start runs the root model over s at w x h, with live refresh every
// interval.
// It returns once the first screen shows the tree, the store's seq and
// every text of first.
func start(t *testing.T, s *store.Store, clock *store.VirtualClock, w, h int, interval time.Duration, first ...string) *app {
	t.Helper()
	return run(t, testModel(s, clock, interval), w, h, first...)
}

// testModel is the root model start runs, for a test that changes it
// before run.
func testModel(s *store.Store, clock *store.VirtualClock, interval time.Duration) model {
	cfg := Config{Clock: clock, Refresh: interval, Open: func(ctx context.Context, url string) (*store.Store, error) {
		return store.Open(ctx, url, store.Options{Clock: clock.Now})
	}}
	return newModel(s, cfg, themes.NewStyles(themes.Dark()), func(string) error { return nil })
}

// run runs m at w x h and returns once the first screen shows the tree,
// the store's seq and every text of first.
func run(t *testing.T, m model, w, h int, first ...string) *app {
	t.Helper()
	a := &app{t: t, s: m.store, clock: m.cfg.Clock, tm: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))}
	a.waitFor(append(first, `"accounts"`, "seq ")...)
	return a
}

// waitFor waits until the screen shows every text (in output written
// since the last wait).
func (a *app) waitFor(texts ...string) {
	a.t.Helper()
	teatest.WaitFor(a.t, a.tm.Output(), func(b []byte) bool {
		for _, s := range texts {
			if !bytes.Contains(b, []byte(s)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(2*time.Minute), teatest.WithCheckInterval(20*time.Millisecond))
}

func (a *app) keys(names ...string) {
	for _, n := range names {
		a.tm.Send(viewtest.Key(n))
	}
}

// leaseInBrowse shows Leases and jumps (o) from its second lease to the
// lease's raw row in Browse, once Browse shows every text of shows.
func (a *app) leaseInBrowse(shows ...string) {
	a.t.Helper()
	a.keys("2")
	a.waitFor("LEASES", "Ticker")
	a.keys("j", "o")
	a.waitFor(append([]string{"[1 Browse]"}, shows...)...)
}

func (a *app) command(line string) {
	a.keys(":")
	a.tm.Type(line)
	a.keys("enter")
}

// final quits, as a SIGTERM does (without asking, whatever the tabs
// hold), and returns the last model.
func (a *app) final() model {
	a.t.Helper()
	if err := a.tm.Quit(); err != nil {
		a.t.Fatal(err)
	}
	return a.tm.FinalModel(a.t, teatest.WithFinalTimeout(10*time.Second)).(model)
}

func (a *app) value(text string) string {
	a.t.Helper()
	e, ok, err := a.s.Get(context.Background(), storetest.Key(a.t, text))
	if err != nil {
		a.t.Fatal(err)
	}
	if !ok {
		return "<absent>"
	}
	return string(e.Value)
}

// reference runs the TUI over a copy of the reference store kept at a
// fixed path (the status bar shows the path, and goldens must not change
// with the random name of a temporary directory). Two checkouts testing at
// once would share that path, so the test holds a lock on it while it runs.
func reference(t *testing.T, readOnly bool, w, h int, first ...string) *app {
	t.Helper()
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, fixedReference(t), clock, readOnly)
	return start(t, s, clock, w, h, time.Hour, first...)
}

// fixedReference copies the reference store to a path fixed by the
// test's name, locked while the test runs and removed after it.
func fixedReference(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("kvdeck-tui-%d", os.Getuid()), strings.ReplaceAll(t.Name(), "/", "_"))
	lockFixedPath(t, dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "reference.db")
	if err := os.Rename(storetest.CopyReference(t), path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestShellGolden: the whole screen at both sizes, at the top and on an
// entry, and the help screen.
func TestShellGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			a := reference(t, false, sz.w, sz.h)
			a.keys("enter", "j")
			a.waitFor("enterprise")
			golden.RequireEqual(t, a.final().View())
		})
	}
	t.Run("help", func(t *testing.T) {
		a := reference(t, true, 120, 40)
		a.keys("?")
		a.waitFor("HELP")
		golden.RequireEqual(t, a.final().View())
	})
}

func TestFlowNavigateAndExpand(t *testing.T) {
	a := reference(t, false, 120, 40)
	a.keys("enter")
	a.waitFor(`"acme"`, `"globex"`)
	a.keys("j", "l")
	a.waitFor(`"billing"`)
	a.keys("j")
	a.waitFor(`["accounts", "acme", "billing"]`)
	a.command(`goto ["ledger", -0, 5n]`)
	a.waitFor(`["ledger", -0, 5n]`)
	a.keys("3")
	a.waitFor("CLASSES", "CART", "due entries")
	a.keys("1")
	a.waitFor(`"ledger"`)
	other := storetest.CopyReference(t)
	a.command("open " + other)
	a.waitFor("opened file:" + other)
	a.command("open /nonexistent/dir/x.db")
	a.waitFor("cannot open")
	m := a.final()
	if !m.owned || m.session != 2 || m.store.Info().Display != "file:"+other {
		t.Errorf(":open did not switch stores: owned %v session %d %s", m.owned, m.session, m.store.Info().Display)
	}
	if m.tab != tabBrowse {
		t.Errorf("tab = %v", m.tab)
	}
}

// editConflict: open the editor, let another writer change the key, save:
// the conflict screen names the new stamp; keep editing, reload and save
// again.
func editConflict(t *testing.T, a *app, key string) {
	t.Helper()
	a.command("goto " + key)
	a.waitFor("ENTRY", "stamp")
	a.keys("e")
	a.waitFor("EDIT", "saves only if")
	k, _ := codec.Parse(key)
	stamp, err := a.s.Set(context.Background(), k, []byte(`"theirs"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	a.keys("end", "ctrl+u")
	a.tm.Type(`"mine"`)
	a.keys("ctrl+s")
	a.waitFor("CONFLICT", stamp)
	if v := a.value(key); v != `"theirs"` {
		t.Fatalf("the conflicting save wrote %s", v)
	}
	a.keys("e") // the conflict screen: keep editing, then reload theirs
	a.waitFor("EDIT")
	a.keys("ctrl+r")
	a.waitFor("reloaded")
	a.keys("end", "ctrl+u")
	a.tm.Type(`"mine"`)
	a.keys("ctrl+s")
	a.waitFor("saved")
	if v := a.value(key); v != `"mine"` {
		t.Fatalf("value after reload and save = %s", v)
	}
}

func TestFlowEditConflict(t *testing.T) {
	a := reference(t, false, 120, 40)
	editConflict(t, a, `["accounts", "hooli"]`)
	a.final()
}

func TestFlowDeleteConfirm(t *testing.T) {
	a := reference(t, false, 120, 40)
	a.command(`goto ["accounts", "globex"]`)
	a.waitFor("00000000000000000004")
	a.keys("d")
	a.waitFor("Delete this key?", `["accounts", "globex"]`)
	a.keys("n")
	a.waitFor("cancelled")
	if v := a.value(`["accounts", "globex"]`); v == "<absent>" {
		t.Fatal("cancel deleted the key")
	}
	a.keys("d")
	a.waitFor("Delete this key?")
	a.keys("y")
	a.waitFor(`deleted ["accounts", "globex"]`)
	if v := a.value(`["accounts", "globex"]`); v != "<absent>" {
		t.Fatalf("globex = %s after a confirmed delete", v)
	}
	a.final()
}

func TestFlowReadOnlyRefusal(t *testing.T) {
	a := reference(t, true, 120, 40, "READ-ONLY")
	a.command(`goto ["accounts", "acme"]`)
	a.waitFor("enterprise")
	a.keys("e")
	a.waitFor("read-only: edit value")
	a.keys("d")
	a.waitFor("read-only: delete")
	m := a.final()
	if m.dialog() != nil || m.tabs.browse.Keeps(viewtest.Key("q")) {
		t.Fatal("a write action opened in read-only mode")
	}
}

// TestFlowLiveRefresh: another writer's change shows within a couple of
// ticks; paused, it does not.
func TestFlowLiveRefresh(t *testing.T) {
	s, clock, _ := viewtest.Reference(t, false)
	a := start(t, s, clock, 120, 40, 100*time.Millisecond)
	a.keys("enter")
	a.waitFor(`"acme"`)
	if _, err := s.Set(context.Background(), codec.Key{codec.String("accounts"), codec.String("aardvark")}, []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	a.waitFor(`"aardvark"`, "seq 64")
	a.keys("p")
	a.waitFor("paused")
	a.command("clock +1h")
	a.waitFor("clock fixed 2026-01-02T01:00:00Z")
	a.final()
}

// TestFlowOnSqld runs the edit-conflict flow against a real sqld.
func TestFlowOnSqld(t *testing.T) {
	srv := sqldtest.Start(t)
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, srv.URL, clock, false)
	for _, k := range []string{"acme", "globex", "hooli"} {
		if _, err := s.Set(context.Background(), codec.Key{codec.String("accounts"), codec.String(k)}, []byte(`true`), nil); err != nil {
			t.Fatal(err)
		}
	}
	a := start(t, s, clock, 120, 40, time.Hour, "remote http")
	a.keys("enter")
	a.waitFor(`"hooli"`)
	editConflict(t, a, `["accounts", "hooli"]`)
	a.final()
}

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		line string
		want string // fmt of the command, or "error"
	}{
		{"open /tmp/x.db", "open /tmp/x.db"},
		{"open /tmp/x.db --auth-token", "open /tmp/x.db"},
		{"open --auth-token=s3cret /tmp/x.db", "error"},
		{"open /tmp/x.db /tmp/y.db", "error"},
		{"open --auth-token", "error"},
		{"open x --bogus", "error"},
		{"goto [\"a\", 1n]", `goto ["a", 1n]`},
		{"refresh 500ms", "refresh 500ms"},
		{"refresh off", "refresh 0s"},
		{"refresh 1ms", "error"},
		{"clock +5m", "clock +5m0s"},
		{"clock -1h", "clock -1h0m0s"},
		{"clock now", "clock reset"},
		{"clock 1767312000000", "clock @1767312000000"},
		{"clock 2026-01-02T00:00:00Z", "clock @1767312000000"},
		{"clock soon", "error"},
		{"goto [", "error"},
		{"frobnicate", "error"},
	} {
		c, err := parseCommand(tc.line)
		got := "error"
		if err == nil {
			switch c.verb {
			case "open":
				got = "open " + c.url
			case "goto":
				got = "goto " + codec.Format(c.key)
			case "refresh":
				got = "refresh " + c.interval.String()
			case "clock":
				switch {
				case c.clock.reset:
					got = "clock reset"
				case c.clock.fix != 0:
					got = fmt.Sprintf("clock @%d", c.clock.fix)
				default:
					got = fmt.Sprintf("clock %+v", c.clock.advance)
				}
			}
		}
		if got != tc.want && !(tc.want == "clock +5m0s" && strings.HasSuffix(got, "5m0s")) {
			t.Errorf("parseCommand(%q) = %s (%v), want %s", tc.line, got, err, tc.want)
		}
	}
}

// TestHelpScrollsAt80x24: the help is taller than an 80x24 screen; it says
// which lines it shows and scrolls to its end (it was cut, with no way to
// see the rest: issue 13 bug 7).
func TestHelpScrollsAt80x24(t *testing.T) {
	a := reference(t, false, 80, 24)
	a.keys("?")
	a.waitFor("HELP · Browse", "lines 1-18 of")
	a.keys("G")
	a.waitFor("closes this help")
	golden.RequireEqual(t, a.final().View())
}

// TestHelpNotesBelongToTheirTab: only Browse's help speaks of e and d as
// CAS-guarded edit and delete; every tab has a note of its own.
func TestHelpNotesBelongToTheirTab(t *testing.T) {
	for tb := range numTabs {
		notes := strings.Join(tabNotes(tb), " ")
		if notes == "" {
			t.Errorf("%s has no help note", tb)
		}
		if tb != tabBrowse && strings.Contains(notes, "e and d") {
			t.Errorf("%s's help claims what e and d do on Browse: %s", tb, notes)
		}
	}
}

// TestMessageLog: a message too long for the flash line is cut there,
// with a pointer to :log, and :log shows it in full, wrapped (the status
// line can be cut, the log cannot).
func TestMessageLog(t *testing.T) {
	a := reference(t, false, 80, 24)
	a.command("open /nonexistent/folder/with/a/rather/long/name/that/does/not/fit/x.db")
	a.waitFor("(all in :log)")
	a.command("log")
	a.waitFor("MESSAGE LOG", "no database at", "✗ cannot open")
	a.keys("esc")
	a.waitFor("KEYS")
	m := a.final()
	if len(m.flash.log) < 2 || !strings.Contains(m.flash.log[len(m.flash.log)-1].msg.Text, "cannot open") {
		t.Fatalf("log = %+v", m.flash.log)
	}
}

// TestConfirmOverTheScreen: a dialog is drawn over the dimmed screen it
// is about, not on a blank one.
func TestConfirmOverTheScreen(t *testing.T) {
	a := reference(t, false, 80, 24)
	a.keys("enter", "j")
	a.waitFor("enterprise")
	a.keys("d")
	a.waitFor("Delete this key?")
	v := a.final().View()
	for _, want := range []string{"Delete this key?", "KEYS", `"accounts"`, "ENTRY"} {
		if !strings.Contains(ansi.Strip(v), want) {
			t.Fatalf("the dialog screen lacks %q:\n%s", want, v)
		}
	}
}

// TestTabBarNarrow: at 60 columns the active tab is named in the tab bar
// (Race and Sweep were cut off the end).
func TestTabBarNarrow(t *testing.T) {
	a := reference(t, false, 60, 18)
	a.keys("7")
	a.waitFor("[7 Sweep]")
	if bar := strings.Split(a.final().View(), "\n")[0]; !strings.Contains(bar, "[7 Sweep]") {
		t.Fatalf("tab bar %q", bar)
	}
}

// TestClickTab: a click on a tab's label in the tab bar shows the tab, at
// full and at narrow width.
func TestClickTab(t *testing.T) {
	for _, w := range []int{120, 60} {
		// A subtest per width: each has its own fixed path and lock (a
		// second reference in one test waited on its own lock forever).
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			a := reference(t, false, w, 24)
			m := a.final()
			m.width = w
			for want := range numTabs {
				x := -1
				for c := range w {
					if got, ok := m.tabAt(c); ok && got == want {
						x = c
						break
					}
				}
				if x < 0 {
					t.Fatalf("width %d: no column shows tab %v", w, want)
				}
				next, _ := m.handleMouse(tea.MouseMsg{X: x, Y: 0, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
				if got := next.tab; got != want {
					t.Errorf("width %d: a click at column %d shows %v, want %v", w, x, got, want)
				}
			}
		})
	}
}

// TestReaderKeepsTheGlobalKeys: over Browse's value reader the global
// keys work as everywhere (1-8 switch tabs, : opens the command line, z
// the undo list), the reader staying open behind them, and q closes the
// reader, not kvdeck. The reader took every key, and z, : and the digits
// did nothing.
func TestReaderKeepsTheGlobalKeys(t *testing.T) {
	a := reference(t, false, 120, 40)
	a.command(`goto ["accounts", "acme", "billing"]`)
	a.waitFor(`["accounts", "acme", "billing"]`, "stamp ") // the entry read: v reads it
	a.keys("v")
	a.waitFor("VALUE ", "space page")
	a.keys("2")
	a.waitFor("[2 Leases]", "LEASES")
	a.keys("1")
	a.waitFor("[1 Browse]", "VALUE ")
	a.keys(":")
	a.waitFor("goto [")
	a.keys("esc")
	a.keys("z")
	a.waitFor("z (undo)")
	a.keys("q")
	a.waitFor(`"billing"`)
	m := a.final()
	if m.tab != tabBrowse || m.tabs.browse.Keeps(viewtest.Key("q")) {
		t.Errorf("q did not close the reader (tab %v)", m.tab)
	}
}
