package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/journal"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
)

// TestTUIOpenStoreFollowsTheSavedStore: the store switcher's opener (the
// TUI's :store NAME) opens each saved store as --store NAME would: its
// own token and no other's (a listener saved with its own token gets
// that one, never the sqld's), read-only as saved unless --write
// (--read-only keeps all read-only), the journal of its own URL when
// writable, an unknown name listing the saved ones, and no token in an
// error.
func TestTUIOpenStoreFollowsTheSavedStore(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithJWT())
	listener := newHeaderLog(t)
	dir := t.TempDir()
	aURL, bURL := "file:"+filepath.Join(dir, "a.db"), "file:"+filepath.Join(dir, "b.db")
	storetest.Open(t, aURL, store.Options{})
	storetest.Open(t, bURL, store.Options{})
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

[stores.bad]
url = %q
token_env = "BAD_TOKEN"

[stores.e]
url = %q
token_env = "E_TOKEN"
`, aURL, bURL, srv.URL, srv.URL, listener.srv.URL)
	token := srv.Token(t)
	env := map[string]string{"XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_STATE_HOME": filepath.Join(dir, "state"),
		"C_TOKEN": token, "BAD_TOKEN": "not-a-valid-token-7731", "E_TOKEN": "for-e-only"}
	configFile(t, env, conf, 0o600)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	type opened struct {
		readOnly bool
		journal  string // the journal's path, "" for none
	}
	run := func(args ...string) (cur tuiconfig.SavedStore, names []string, got map[string]opened, errs map[string]string) {
		t.Helper()
		got, errs = map[string]opened{}, map[string]string{}
		runner := func(_ context.Context, _ *store.Store, cfg tuiconfig.Config) error {
			cur = cfg.Current
			list, err := cfg.Stores()
			if err != nil {
				t.Errorf("Stores: %v", err)
			}
			for _, st := range list {
				names = append(names, fmt.Sprintf("%s/%s/ro=%v", st.Name, st.Group, st.ReadOnly))
			}
			for _, name := range []string{"a", "b", "c", "e", "bad", "nope"} {
				s, entry, err := cfg.OpenStore(ctx, name)
				if err != nil {
					errs[name] = err.Error()
					continue
				}
				if entry.Name != name || entry.ReadOnly != s.Info().ReadOnly {
					t.Errorf("%s: entry %+v, store read-only %v", name, entry, s.Info().ReadOnly)
				}
				o := opened{readOnly: s.Info().ReadOnly}
				if j := journal.Of(s); j != nil {
					o.journal = j.Path()
				}
				got[name] = o
			}
			return nil
		}
		r := runMain(t, env, "", append(args, "tui"), WithTUI(runner))
		if r.code != 0 {
			t.Fatalf("%v tui: exit %d: %s", args, r.code, r.stderr)
		}
		return
	}

	cur, names, got, errs := run("--store", "a")
	if cur.Name != "a" || cur.Group != "dev" || cur.ReadOnly {
		t.Errorf("Current = %+v; want a, dev, writable", cur)
	}
	if want := "a/dev/ro=false b/dev/ro=true bad//ro=true c/prod/ro=false e//ro=true"; strings.Join(names, " ") != want {
		t.Errorf("Stores = %s; want %s", strings.Join(names, " "), want)
	}
	jdir, err := journal.StateDir(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	wantJournal := func(url string) string {
		j, err := journal.Open(url, journal.Options{Dir: jdir})
		if err != nil {
			t.Fatal(err)
		}
		return j.Path()
	}
	if o := got["a"]; o.readOnly || o.journal != wantJournal(aURL) {
		t.Errorf("a: %+v; want writable with the journal %s", o, wantJournal(aURL))
	}
	if o := got["b"]; !o.readOnly || o.journal != "" {
		t.Errorf("b (saved read-only): %+v; want read-only, no journal", o)
	}
	if o := got["c"]; o.readOnly || o.journal != wantJournal(srv.URL) {
		t.Errorf("c (sqld, its own token): %+v, error %q; want writable with the journal %s", o, errs["c"], wantJournal(srv.URL))
	}
	if e := errs["bad"]; e == "" || strings.Contains(e, "not-a-valid-token-7731") {
		t.Errorf("bad (a wrong token): error %q; want an error without the token", e)
	}
	if e := errs["nope"]; !strings.Contains(e, "saved stores are a, b, bad, c, e") {
		t.Errorf("nope: error %q; want the saved names", e)
	}
	_, auth := listener.log()
	if len(auth) == 0 {
		t.Error("the listener saved with its own token got no Authorization")
	}
	for _, h := range auth {
		if h != "Bearer for-e-only" {
			t.Errorf("the listener got Authorization %q; want only its own token", h)
		}
	}

	// --write opens b to write; --read-only keeps every store read-only
	if _, _, got, _ := run("--store", "a", "--write"); got["b"].readOnly || got["b"].journal != wantJournal(bURL) {
		t.Errorf("--write: b %+v; want writable, journaled", got["b"])
	}
	if _, _, got, _ := run("--store", "a", "--read-only"); !got["a"].readOnly || !got["c"].readOnly {
		t.Errorf("--read-only: a %+v, c %+v; want both read-only", got["a"], got["c"])
	}
	// from --db: no current store, the switcher still works
	if cur, _, got, _ := run("--db", aURL); cur.Name != "" || got["c"].readOnly {
		t.Errorf("--db: Current %+v, c %+v; want none, c writable", cur, got["c"])
	}
}

// TestTUIFleetProbesStayOpen: the Fleet view's opener keeps a saved
// store open from one read to the next (the view hands it back through
// ProbeDone): a second read gets the same store without running its
// token command again; a read that failed makes the next one open anew
// (the token asked for again); the command's end closes what is kept.
// Before, every read of the view opened the store and ran the command.
func TestTUIFleetProbesStayOpen(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithJWT())
	token := srv.Token(t)
	if r := runMain(t, nil, "", []string{"--db", srv.URL, "--auth-token", token, "set", `["a"]`, "1"}); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	env := storesEnv(t)
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	tokFile := writeFile(t, "tok", token)
	tuiDB := "file:" + filepath.Join(dir, "tui.db")
	if r := runMain(t, env, "", []string{"--db", tuiDB, "init"}); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	configFile(t, env, "[stores.jwt]\nurl = \""+srv.URL+"\"\ntoken_command = \"echo run >> "+runs+"; cat "+tokFile+"\"\n"+
		"[stores.local]\nurl = \""+tuiDB+"\"\n", 0o600)
	ran := func() int {
		b, _ := os.ReadFile(runs)
		return strings.Count(string(b), "run")
	}
	var kept, local *store.Store
	runner := func(ctx context.Context, _ *store.Store, cfg tuiconfig.Config) error {
		readOne := func(name string, fail error) *store.Store {
			t.Helper()
			s, err := cfg.OpenProbe(ctx, name)
			if err != nil {
				t.Fatalf("open probe: %v", err)
			}
			if _, err := s.Seq(ctx); err != nil {
				t.Fatalf("read: %v", err)
			}
			if cfg.ProbeDone != nil {
				cfg.ProbeDone(name, fail)
			} else {
				s.Close()
			}
			return s
		}
		read := func(fail error) *store.Store { return readOne("jwt", fail) }
		local = readOne("local", nil)
		if again := readOne("local", nil); again != local {
			t.Error("a file store was opened again for its second read")
		}
		first := read(nil)
		if second := read(nil); second != first || ran() != 1 {
			t.Errorf("second read: same store %v, token command ran %d times; want the same store, one run", second == first, ran())
		}
		read(fmt.Errorf("the read failed"))
		kept = read(nil)
		if kept == first || ran() != 2 {
			t.Errorf("after a failed read: same store %v, token command ran %d times; want a new store, two runs", kept == first, ran())
		}
		return nil
	}
	r := runMain(t, env, "", []string{"--db", tuiDB, "tui"}, WithTUI(runner))
	if r.code != 0 {
		t.Fatalf("tui: exit %d: %s", r.code, r.stderr)
	}
	if kept == nil {
		t.Fatal("no store was kept")
	}
	// A file store's handle tells it was closed (a closed store over HTTP
	// still reads through kvdeck's own client).
	if _, err := local.Seq(storetest.Ctx(t)); err == nil {
		t.Error("the file store kept for the Fleet view is still open after the command")
	}
}

// TestTUIFleetFlag: tui --fleet GROUP hands the TUI the group (the tabs'
// fleet mode starts on it); a group no saved store is in is refused
// before the TUI runs, naming the group.
func TestTUIFleetFlag(t *testing.T) {
	dir := t.TempDir()
	aURL := "file:" + filepath.Join(dir, "a.db")
	storetest.Open(t, aURL, store.Options{})
	cfgDir := filepath.Join(dir, "config")
	if err := os.MkdirAll(filepath.Join(cfgDir, "kvdeck"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "kvdeck", "config.toml"), []byte(fmt.Sprintf("[stores.a]\nurl = %q\ngroup = \"prod\"\n", aURL)), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"XDG_CONFIG_HOME": cfgDir, "XDG_STATE_HOME": filepath.Join(dir, "state")}
	var group string
	ran := 0
	runner := func(_ context.Context, _ *store.Store, cfg tuiconfig.Config) error {
		group, ran = cfg.FleetGroup, ran+1
		return nil
	}
	if r := runMain(t, env, "", []string{"--store", "a", "tui", "--fleet", "prod"}, WithTUI(runner)); r.code != 0 || group != "prod" {
		t.Errorf("tui --fleet prod: exit %d (%s), the TUI got group %q", r.code, r.stderr, group)
	}
	r := runMain(t, env, "", []string{"--store", "a", "tui", "--fleet", "nope"}, WithTUI(runner))
	if r.code == 0 || ran != 1 || !strings.Contains(r.stderr, "--fleet nope: no saved store in group nope") {
		t.Errorf("tui --fleet nope: exit %d, TUI runs %d, stderr %q; want a refusal naming the group", r.code, ran, r.stderr)
	}
}
