package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"

	kvhist "kvdeck/internal/history"
	"kvdeck/internal/journal"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storeconfig"
	"kvdeck/internal/storetest"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

// savedStores is a config.toml and what the CLI hands the TUI for it
// (internal/cli/cmd_tui.go's tuiStores and tuiOpenStore, which the CLI's
// tests pin): each store with its own token, read-only as saved, and the
// write journal of its URL when writable.
type savedStores struct {
	path, journals string
	env            map[string]string
	clock          *store.VirtualClock
	//lint:ignore U1000 set and read by the large-data lock matrix (largedata tag)
	machine *kvhist.Machine // the store's past, for :at (nil: none)
}

// saveStores writes conf as dir/config.toml: the saved stores, their
// journals under dir/state, tokens from env.
func saveStores(t *testing.T, dir, conf string, env map[string]string, clock *store.VirtualClock) savedStores {
	t.Helper()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return savedStores{path: path, journals: filepath.Join(dir, "state"), env: env, clock: clock}
}

func (c savedStores) list() ([]tuiconfig.SavedStore, error) {
	cfg, err := storeconfig.Load(c.path)
	if err != nil {
		return nil, err
	}
	var out []tuiconfig.SavedStore
	for _, n := range cfg.Names() {
		st, _ := cfg.Get(n)
		out = append(out, tuiconfig.SavedStore{Name: st.Name, Group: st.Group, URL: st.URL, ReadOnly: st.IsReadOnly()})
	}
	return out, nil
}

func (c savedStores) open(ctx context.Context, name string) (*store.Store, tuiconfig.SavedStore, error) {
	cfg, err := storeconfig.Load(c.path)
	if err != nil {
		return nil, tuiconfig.SavedStore{}, err
	}
	st, err := cfg.Get(name)
	if err != nil {
		return nil, tuiconfig.SavedStore{}, err
	}
	entry := tuiconfig.SavedStore{Name: st.Name, Group: st.Group, URL: st.URL, ReadOnly: st.IsReadOnly()}
	token, err := cfg.Token(ctx, st, c.env)
	if err != nil {
		return nil, entry, err
	}
	s, err := store.Open(ctx, st.URL, store.Options{Clock: c.clock.Now, AuthToken: token, ReadOnly: entry.ReadOnly})
	if err != nil {
		return nil, entry, err
	}
	if !entry.ReadOnly {
		j, err := journal.Open(st.URL, journal.Options{Dir: c.journals})
		if err != nil {
			s.Close()
			return nil, entry, err
		}
		s.SetRecorder(j)
	}
	return s, entry, nil
}

// seed writes keys through name's store as the TUI opens it (journaled
// when writable) and returns its version.
func (c savedStores) seed(t *testing.T, name string, keys ...string) store.Version {
	t.Helper()
	ctx := storetest.Ctx(t)
	s, _, err := c.open(ctx, name)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	defer s.Close()
	for _, k := range keys {
		if _, err := s.Set(ctx, storetest.Key(t, k), []byte(`{"json":1}`), nil); err != nil {
			t.Fatalf("%s: set %s: %v", name, k, err)
		}
	}
	v, err := s.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestStoreSwitchFlow: two file stores and a real sqld, saved in a
// config.toml. :store b and the picker (O) switch in place and keep the
// tab; the status bar names the store and its group, READ-ONLY follows
// the saved setting, z reads the journal of the store shown, and a late
// answer of the old store is dropped. :store with an unknown name lists
// the saved ones; an unreachable store keeps the old one and names the
// one that failed.
func TestStoreSwitchFlow(t *testing.T) {
	saved, aVersion, cVersion := switchStores(t)
	clock := saved.clock
	ctx := storetest.Ctx(t)
	a, entryA, err := saved.open(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	cfg := Config{Clock: clock, Refresh: time.Hour, Stores: saved.list, OpenStore: saved.open, Current: entryA}
	m := newModel(a, cfg, themes.NewStyles(themes.Dark()), func(string) error { return nil })
	app := &app{t: t, s: a, clock: clock, tm: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 30))}
	app.waitFor(`"a-only"`, "a (dev)", "seq ")

	// :store b: a file saved read-only
	app.command("store b")
	app.waitFor(`"b-only"`, " b (dev) ", "READ-ONLY", "switched to store b (dev) (read-only)")

	// the picker, on another tab: c over sqld, with its own token
	app.keys("4", "O")
	app.waitFor("[4 Queues]", "STORES", "›● b", "prod", "http://127.0.0.1:1")
	app.keys("down", "enter")
	app.waitFor(" c (prod) ", "switched to store c (prod)")

	// a late answer of the first store is dropped (the final model's
	// seq below); z, sent after it, reads c's journal
	app.tm.Send(readVersion(a, 1)())
	app.keys("z")
	app.waitFor("UNDO", `["c-only"]`)
	app.keys("esc")

	// failures keep c
	app.command("store nope")
	app.waitFor(`cannot switch to store nope`, "saved stores are a, b, c, d", "still on c (prod)")
	// (connecting to d… may be drawn or not: a refused connection can
	// answer within one frame; TestStoreSwitchLaterWins sees it)
	app.command("store d")
	app.waitFor("cannot switch to store d", "still on c (prod)")

	final := app.final()
	t.Cleanup(func() { final.store.Close() })
	checkSwitchEnd(t, final, aVersion, cVersion)
}

// switchStores saves TestStoreSwitchFlow's stores: files a and b (b
// saved read-only), c over a sqld with its own token, d unreachable; it
// seeds a (five keys), b and c (a key each) and returns a's and c's
// versions, which differ.
func switchStores(t *testing.T) (saved savedStores, aVersion, cVersion store.Version) {
	t.Helper()
	srv := sqldtest.Start(t, sqldtest.WithJWT())
	dir := t.TempDir()
	aURL, bURL := "file:"+filepath.Join(dir, "a.db"), "file:"+filepath.Join(dir, "b.db")
	conf := fmt.Sprintf(`[stores.a]
url = %q
read_only = false
group = "dev"

[stores.b]
url = %q
group = "dev"

[stores.c]
url = %q
token_env = "C_TOKEN"
read_only = false
group = "prod"

[stores.d]
url = "http://127.0.0.1:1"
group = "gone"
`, aURL, bURL, srv.URL)
	clock := viewtest.FixedClock()
	saved = saveStores(t, dir, conf, map[string]string{"C_TOKEN": srv.Token(t)}, clock)
	storetest.Open(t, aURL, store.Options{Clock: clock.Now})
	aVersion = saved.seed(t, "a", `["a-only"]`, `["a-2"]`, `["a-3"]`, `["a-4"]`, `["a-5"]`)
	b := storetest.Open(t, bURL, store.Options{Clock: clock.Now})
	if _, err := b.Set(storetest.Ctx(t), storetest.Key(t, `["b-only"]`), []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	cVersion = saved.seed(t, "c", `["c-only"]`)
	if aVersion.Seq == cVersion.Seq {
		t.Fatalf("a and c stand at the same seq %d: the stale answer below would prove nothing", aVersion.Seq)
	}
	return saved, aVersion, cVersion
}

// checkSwitchEnd: TestStoreSwitchFlow ended on c, writable, in the tab
// the switches kept (Queues), with c's seq (a's late answer dropped), and
// c's journal holds c's one write, none of a's.
func checkSwitchEnd(t *testing.T, final model, aVersion, cVersion store.Version) {
	t.Helper()
	if final.tab != tabQueues || final.sw.current.Name != "c" || final.info.ReadOnly || final.sw.connecting != "" {
		t.Errorf("final: tab %s, store %q, read-only %v, connecting %q; want Queues (the tab kept), c, writable, none", final.tab, final.sw.current.Name, final.info.ReadOnly, final.sw.connecting)
	}
	if final.refresh.version.Seq != cVersion.Seq {
		t.Errorf("status seq %d; want c's %d (a's %d arrived late and must be dropped)", final.refresh.version.Seq, cVersion.Seq, aVersion.Seq)
	}
	j := journal.Of(final.store)
	if j == nil {
		t.Fatal("c is writable, yet its store has no journal")
	}
	entries, _, err := j.List()
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range entries {
		for _, k := range e.Keys {
			keys = append(keys, journal.KeyText(k))
		}
	}
	if !slices.Equal(keys, []string{`["c-only"]`}) {
		t.Errorf("c's journal holds %q; want c's one write", keys)
	}
	if final.undo() != nil && slices.ContainsFunc(final.undo().actions, func(a journal.Action) bool {
		return strings.Contains(journal.KeyText(a.Keys()[0]), "a-")
	}) {
		t.Error("the z overlay shows a's writes on c")
	}
}

// TestStorePickerGolden: the picker at 120x40 and 80x24, over the
// reference store.
func TestStorePickerGolden(t *testing.T) {
	stores := []tuiconfig.SavedStore{
		{Name: "dev", Group: "dev", URL: "file:/home/me/dev.db"},
		{Name: "prod-eu", Group: "prod", URL: "libsql://prod-eu.example.turso.io", ReadOnly: true},
		{Name: "prod-us", Group: "prod", URL: "libsql://prod-us.example.turso.io", ReadOnly: true},
		{Name: "tenant-with-a-long-name", Group: "tenants", URL: "https://db.example.com:8443/v2/namespaces/tenant-with-a-long-name", ReadOnly: true},
	}
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			a := referenceWith(t, size[0], size[1], func(cfg *Config) {
				cfg.Stores = func() ([]tuiconfig.SavedStore, error) { return stores, nil }
				cfg.OpenStore = func(context.Context, string) (*store.Store, tuiconfig.SavedStore, error) {
					return nil, tuiconfig.SavedStore{}, fmt.Errorf("not in this test")
				}
				cfg.Current = stores[0]
			})
			a.keys("O")
			a.waitFor("tenant-with", "›● dev")
			a.keys("down")
			a.waitFor("›  prod-eu")
			golden.RequireEqual(t, a.final().View())
		})
	}
}

// referenceWith is reference (flow_test.go) with the config changed by
// with: the reference store at a fixed path, so that goldens do not
// change with a temporary directory's name.
func referenceWith(t *testing.T, w, h int, with func(*Config)) *app {
	t.Helper()
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, fixedReference(t), clock, false)
	cfg := Config{Clock: clock, Refresh: time.Hour}
	with(&cfg)
	return run(t, newModel(s, cfg, themes.NewStyles(themes.Dark()), func(string) error { return nil }), w, h)
}
