package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storeconfig"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

// openProbe is internal/cli/cmd_tui.go's tuiOpenProbe for the test's
// config.toml: read-only, unchecked, the store's own token.
func (c savedStores) openProbe(ctx context.Context, name string) (*store.Store, error) {
	cfg, err := storeconfig.Load(c.path)
	if err != nil {
		return nil, err
	}
	st, err := cfg.Get(name)
	if err != nil {
		return nil, err
	}
	token, err := cfg.Token(ctx, st, c.env)
	if err != nil {
		return nil, err
	}
	return store.Open(ctx, st.URL, store.Options{Clock: c.clock.Now, AuthToken: token, ReadOnly: true, Unchecked: true})
}

// TestFleetFlow: seven saved stores (a file the TUI starts on, the
// reference's rows in a file and in a sqld, a missing file, a file that
// is no store, a second sqld stopped mid-test, and one behind a proxy
// that never answers in time). F shows every row: the slow one as slow
// while the others are read (it holds none up), the broken ones as what
// they are; writes between ticks give a commit rate; the stopped server
// turns unreachable; S sorts, / filters, enter opens a store in the
// tabs, F comes back, esc leaves.
func TestFleetFlow(t *testing.T) {
	up, down := sqldtest.Start(t), sqldtest.Start(t)
	storetest.CopyReferenceRows(t, up.URL)
	storetest.CopyReferenceRows(t, down.URL)
	hung := sqldtest.StartProxy(t, up.URL, time.Hour)
	dir := t.TempDir()
	conf, plainURL := fleetConf(t, dir, up.URL, down.URL, hung.URL)
	clock := viewtest.FixedClock()
	saved := saveStores(t, dir, conf, nil, clock)
	plain := storetest.Open(t, plainURL, store.Options{Clock: clock.Now, Create: true})
	ctx := storetest.Ctx(t)
	a := runSaved(t, saved, "plain", 120, 40, 300*time.Millisecond)
	a.waitFor("plain (dev)", "seq ")

	a.keys("F")
	a.waitFor("FLEET", "7 saved store(s)", "sqld-up", "✓", "✗ not a store", "… slow")
	// Commits between ticks: plain's rate (checked at the end, so made
	// again just before it: the view keeps the rates of its last 12
	// reads, which a loaded machine's steps below can outlast).
	burst := func() {
		for i := range 20 {
			if _, err := plain.Set(ctx, storetest.Key(t, `["k", `+strconv.Itoa(i)+`]`), []byte(`1`), nil); err != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	burst()

	// The second server stops: its row turns unreachable.
	down.Stop()
	a.keys("/")
	a.tm.Type("down")
	a.keys("enter")
	a.waitFor("/down", "sqld-down: ", "unreachable")
	a.keys("esc", "S")
	a.waitFor("sorted by trouble")

	// enter opens the store under the cursor in the tabs; F comes back.
	a.keys("/")
	a.tm.Type("sqld-up")
	a.keys("enter", "enter")
	a.waitFor("switched to store sqld-up (prod)", `"accounts"`)
	a.keys("F")
	a.waitFor("FLEET", "/sqld-up")
	burst()
	time.Sleep(2 * 300 * time.Millisecond) // a read after the burst
	a.keys("esc", "esc")
	a.waitFor(`"accounts"`, "KEYS")

	final := a.final()
	t.Cleanup(func() { final.store.Close() })
	checkFleetEnd(t, final)
}

// checkFleetEnd: TestFleetFlow ended in the tabs on sqld-up, and the
// Fleet view kept each store's state: the broken ones as what they are,
// the hung one slow or unreachable, plain with a commit rate.
func checkFleetEnd(t *testing.T, final model) {
	t.Helper()
	now := time.Now()
	if final.fleetOpen() || final.sw.current.Name != "sqld-up" {
		t.Errorf("final: fleet shown %v, store %q; want the tabs on sqld-up", final.fleetOpen(), final.sw.current.Name)
	}
	for name, want := range map[string]string{"plain": "ok", "ref": "ok", "sqld-up": "ok", "missing": "", "other": "not a store", "sqld-down": "unreachable"} {
		got, _ := final.fl.view.State(name, now)
		if want != "" && got != want || want == "" && (got == "ok" || got == "reading") {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
	if st, _ := final.fl.view.State("hung", now); st != "slow" && st != "unreachable" {
		t.Errorf("hung: %s, want slow or unreachable", st)
	}
	if _, rates := final.fl.view.State("plain", now); slices.Max(append(rates, 0)) <= 0 {
		t.Errorf("plain: commit rates %v after 20 commits between ticks", rates)
	}
}

// fleetConf is TestFleetFlow's config.toml, seven stores: plain (a new
// file in dir, writable), ref (the reference), missing, other (a file
// that is no store), sqld-up, sqld-down and hung (the sqld URLs given).
// It returns the config and plain's URL.
func fleetConf(t *testing.T, dir, up, down, hung string) (conf, plainURL string) {
	t.Helper()
	plainURL = "file:" + filepath.Join(dir, "plain.db")
	other := "file:" + filepath.Join(dir, "other.db")
	storetest.Exec(t, other, `CREATE TABLE t (x)`)
	conf = fmt.Sprintf(`[stores.plain]
url = %q
read_only = false
group = "dev"
[stores.ref]
url = %q
group = "dev"
[stores.missing]
url = %q
[stores.other]
url = %q
[stores.sqld-up]
url = %q
group = "prod"
[stores.sqld-down]
url = %q
group = "prod"
[stores.hung]
url = %q
group = "prod"
`, plainURL, "file:"+storetest.CopyReference(t), "file:"+filepath.Join(dir, "missing.db"), other, up, down, hung)
	return conf, plainURL
}

// TestFleetEscComesBack: In the tabs of a store opened
// from the Fleet view, esc comes back to the fleet once the active tab has
// nothing of its own to back out of: Browse's filter in force takes the
// first esc, the second returns. In the tabs of a store not opened from
// the fleet, esc stays in the tabs.
func TestFleetEscComesBack(t *testing.T) {
	a := onPlain(t, 120, 40, "[stores.ref]\nurl = "+strconv.Quote("file:"+storetest.CopyReference(t))+"\n")
	a.keys("esc") // not opened from the fleet: esc stays in the tabs
	a.keys("F")
	a.waitFor("FLEET", "2 saved store(s)")
	a.keys("/")
	a.tm.Type("ref")
	a.keys("enter", "enter")
	a.waitFor("switched to store ref", `"accounts"`)
	a.keys("/")
	a.tm.Type("acc")
	a.keys("enter")
	// The filter shown before esc: a screen drawn again the same (all of
	// it in one frame) writes nothing for the next wait to see.
	a.waitFor("esc clears")
	a.keys("esc") // the filter takes this esc
	a.waitFor(`"attachments"`, `"dwk_cron"`)
	a.keys("esc") // nothing left to back out of: the fleet
	a.waitFor("FLEET", "/ref")
	final := a.final()
	t.Cleanup(func() { final.store.Close() })
	if !final.fleetOpen() || final.sw.current.Name != "ref" {
		t.Errorf("final: fleet shown %v on store %q; want the fleet, opened over ref", final.fleetOpen(), final.sw.current.Name)
	}
}

// TestFleetListKeys: the Fleet view's keys are a list's: ? shows its
// help, g and G move, enter on a store that cannot be opened stays in
// the view and says why there, q closes the view (it quit the TUI), and
// F opens it again.
func TestFleetListKeys(t *testing.T) {
	a := onPlain(t, 80, 24, "[stores.missing]\nurl = "+strconv.Quote("file:"+filepath.Join(t.TempDir(), "missing.db"))+"\n")
	a.keys("F")
	a.waitFor("FLEET", "2 saved store(s)", "● plain")
	a.keys("?")
	a.waitFor("HELP · Fleet", "esc/q", "g/home")
	a.keys("esc")
	a.waitFor("FLEET")
	a.keys("G", "g", "enter")
	a.waitFor("cannot open missing (still on plain)")
	a.keys("q")
	a.waitFor("KEYS")
	a.keys("F")
	a.waitFor("FLEET")
	a.keys("G", "g", "enter") // missing again: the answer keeps the fleet
	a.waitFor("cannot open missing (still on plain)")
	final := a.final()
	t.Cleanup(func() { final.store.Close() })
	if !final.fleetOpen() || final.sw.current.Name != "plain" {
		t.Errorf("final: fleet shown %v on store %q; want the fleet over plain", final.fleetOpen(), final.sw.current.Name)
	}
}

// onPlain runs the TUI at w x h on the saved store plain (a new file,
// writable), with more saved stores (config.toml entries) beside it.
func onPlain(t *testing.T, w, h int, more string) *app {
	t.Helper()
	dir := t.TempDir()
	plainURL := "file:" + filepath.Join(dir, "plain.db")
	conf := fmt.Sprintf("[stores.plain]\nurl = %q\nread_only = false\n", plainURL) + more
	clock := viewtest.FixedClock()
	saved := saveStores(t, dir, conf, nil, clock)
	storetest.Open(t, plainURL, store.Options{Clock: clock.Now, Create: true})
	a := runSaved(t, saved, "plain", w, h, time.Hour)
	a.waitFor("plain", "KEYS")
	return a
}

// runSaved runs the TUI at w x h on the saved store name of saved (its
// switcher and the Fleet's opener over them), refreshing every refresh.
func runSaved(t *testing.T, saved savedStores, name string, w, h int, refresh time.Duration) *app {
	t.Helper()
	s, entry, err := saved.open(storetest.Ctx(t), name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	cfg := Config{Clock: saved.clock, Refresh: refresh, Stores: saved.list, OpenStore: saved.open, OpenProbe: saved.openProbe, Current: entry}
	m := newModel(s, cfg, themes.NewStyles(themes.Dark()), func(string) error { return nil })
	return &app{t: t, s: s, clock: saved.clock, tm: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))}
}
