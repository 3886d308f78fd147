package cli

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite" // a plain SQLite file that is not a store

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
)

func TestTokenInURLRefused(t *testing.T) {
	const secret = "TOPSECRETVALUE"
	for _, url := range []string{
		"libsql://db.example.turso.io?authToken=" + secret,
		"https://db.example.turso.io?jwt=" + secret,
		"http://user:" + secret + "@127.0.0.1:8080",
	} {
		r := runMain(t, nil, "", []string{"--db", url, "get", `["k"]`})
		if r.code != CodeError || !strings.Contains(r.stderr, "--auth-token") || !strings.HasPrefix(r.stderr, "kvdeck: ") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 telling to use --auth-token", url, r.code, r.stderr)
		}
		if strings.Contains(r.stdout+r.stderr, secret) {
			t.Errorf("%s: the token leaked: %q", url, r.stderr)
		}
	}
}

func TestBadURL(t *testing.T) {
	for url, want := range map[string]string{
		"ftp://example.com/x.db": "unsupported scheme",
		"file://x.db":            "file URL takes one slash",
		"http://":                "has no host",
		"file:x.db?mode=ro":      "no query",
	} {
		r := runMain(t, nil, "", []string{"--db", url, "get", `["k"]`})
		if r.code != CodeError || !strings.Contains(r.stderr, "bad database URL") || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 with %q", url, r.code, r.stderr, want)
		}
	}
}

func TestUnreachable(t *testing.T) {
	r := runMain(t, nil, "", []string{"--db", "http://127.0.0.1:1", "get", `["k"]`})
	if r.code != CodeError || !strings.Contains(r.stderr, "unreachable") {
		t.Errorf("exit %d, stderr %q; want exit 2, unreachable", r.code, r.stderr)
	}
}

// TestDiffBlamesNoFlagTheUserNeverGave: diff opens its sides read-only
// on its own; a side that is no store must not be told to drop a
// --read-only nobody gave, nor an application's database to be
// initialised.
func TestDiffBlamesNoFlagTheUserNeverGave(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app.db")
	storetest.Exec(t, "file:"+app, "CREATE TABLE people (name TEXT)")
	empty := filepath.Join(dir, "empty.db")
	storetest.Exec(t, "file:"+empty, "PRAGMA user_version = 1")
	for path, want := range map[string]string{app: "has tables people but no kvdeck store", empty: "has no kv and kv_meta tables"} {
		r := runMain(t, nil, "", []string{"diff", path, "-"})
		if r.code != CodeError || !strings.Contains(r.stderr, "A: not a kvdeck store") || !strings.Contains(r.stderr, want) ||
			strings.Contains(r.stderr, "--read-only") || strings.Contains(r.stderr, "init") {
			t.Errorf("diff %s: exit %d, stderr %q; want 2, A: not a kvdeck store, %q, no --read-only, no init", path, r.code, r.stderr, want)
		}
	}
}

func TestNotAStoreReadOnly(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(text, []byte(strings.Repeat("not a database\n", 20)), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.db")
	storetest.Exec(t, "file:"+other, "CREATE TABLE people (name TEXT)")
	for path, want := range map[string]string{
		text:                          "not an SQLite database",
		other:                         "has tables people but no kvdeck store",
		filepath.Join(dir, "none.db"): "no database at " + filepath.Join(dir, "none.db") + " (a read-only open creates none); `kvdeck init --db " + filepath.Join(dir, "none.db") + "` creates a store there",
	} {
		before := fileSum(t, path)
		r := runMain(t, nil, "", []string{"--db", path, "--read-only", "stats"})
		if r.code != CodeError || !strings.Contains(r.stderr, want) || strings.HasSuffix(path, "none.db") == strings.Contains(r.stderr, "not a kvdeck store") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2, %q, and not a kvdeck store but where there is no file", path, r.code, r.stderr, want)
		}
		if after := fileSum(t, path); after != before {
			t.Errorf("%s changed under --read-only", path)
		}
	}
}

// TestMissingSavedStoreHint: a read-only saved store whose file is
// missing names the command that creates it, and that command does;
// the hint said "give --write to create a store there", but --write
// stats creates nothing.
func TestMissingSavedStoreHint(t *testing.T) {
	env := storesEnv(t)
	gone := filepath.Join(t.TempDir(), "gone.db")
	configFile(t, env, "[stores.gone]\nurl = \"file:"+gone+"\"\n", 0o600)
	want := "no database at " + gone + " (a read-only open creates none); `kvdeck --store gone --write init` creates a store there"
	for _, args := range [][]string{{"-s", "gone", "stats"}, {"-s", "gone", "--write", "stats"}} {
		if r := runMain(t, env, "", args); r.code != CodeError || !strings.Contains(r.stderr, want) && !strings.Contains(r.stderr, "no database at "+gone+"; `kvdeck init") {
			t.Errorf("%v: %+v", args, r)
		}
		if _, err := os.Stat(gone); err == nil {
			t.Fatalf("%v created %s", args, gone)
		}
	}
	if r := runMain(t, env, "", []string{"--store", "gone", "--write", "init"}); r.code != 0 {
		t.Fatalf("the hinted init: %+v", r)
	}
	if r := runMain(t, env, "", []string{"-s", "gone", "stats"}); r.code != 0 {
		t.Errorf("stats after the init: %+v", r)
	}
}

func TestJWT(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithJWT())
	_, otherKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	wrong := sqldtest.MintToken(otherKey, time.Now().Add(time.Hour))
	good := srv.Token(t)
	refusals := []struct {
		name string
		args []string
		env  map[string]string
	}{
		{"flag", []string{"--auth-token", wrong}, nil},
		{"flag=", []string{"--auth-token=" + wrong}, nil},
		{"KVDECK_AUTH_TOKEN", nil, map[string]string{"KVDECK_AUTH_TOKEN": wrong}},
		{"TURSO_AUTH_TOKEN", nil, map[string]string{"TURSO_AUTH_TOKEN": wrong}},
		{"none", nil, nil},
	}
	for _, tc := range refusals {
		for _, cmd := range [][]string{{"get", `["k"]`}, {"set", `["k"]`, "1"}, {"-o", "json", "stats"}} {
			args := append(append([]string{"--db", srv.URL}, tc.args...), cmd...)
			r := runMain(t, tc.env, "", args)
			if r.code != CodeError || !strings.Contains(r.stderr, "not authorized") || !strings.Contains(r.stderr, "--auth-token") {
				t.Errorf("%s %v: exit %d, stderr %q; want exit 2, not authorized", tc.name, cmd, r.code, r.stderr)
			}
			if r.stdout != "" || strings.Contains(r.stderr, wrong) || strings.Contains(r.stderr, good) {
				t.Errorf("%s %v: output shows a token: stdout %q stderr %q", tc.name, cmd, r.stdout, r.stderr)
			}
		}
	}
	r := runMain(t, nil, "", []string{"--db", srv.URL, "--auth-token", good, "set", `["k"]`, "1"})
	if r.code != 0 || r.stdout != "00000000000000000001\n" {
		t.Fatalf("good token: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runMain(t, map[string]string{"LIBSQL_AUTH_TOKEN": good}, "", []string{"--db", srv.WSURL, "get", `["k"]`})
	if r.code != 0 || r.stdout != `["k"]  1  v=00000000000000000001`+"\n" {
		t.Fatalf("good token from the environment, over WebSocket: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// The flag wins over the environment.
	r = runMain(t, map[string]string{"KVDECK_AUTH_TOKEN": good}, "", []string{"--db", srv.URL, "--auth-token", wrong, "get", `["k"]`})
	if r.code != CodeError || strings.Contains(r.stderr, wrong) {
		t.Fatalf("flag over env: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestTokenNeverEchoed(t *testing.T) {
	const secret = "TOPSECRETVALUE"
	for _, args := range [][]string{
		{"--auth-token", secret, "get", secret},
		{"--auth-token=" + secret, "frobnicate", secret},
		{"get", "[" + secret},
		{"set", `["k"]`, secret},
	} {
		r := runMain(t, map[string]string{"TURSO_AUTH_TOKEN": secret}, "", append([]string{"--db", "file:" + filepath.Join(t.TempDir(), "kv.db")}, args...))
		if r.code != CodeError || strings.Contains(r.stderr+r.stdout, secret) || !strings.HasPrefix(r.stderr, "kvdeck: ") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with the token redacted", args, r.code, r.stderr)
		}
	}
	r := runMain(t, map[string]string{"KVDECK_AUTH_TOKEN": secret}, "", []string{"--auth-token", secret, "--help"})
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, secret) || !strings.Contains(r.stdout, "Usage: kvdeck") {
		t.Errorf("--help: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestDatabaseResolution(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--db", "file:" + path("flag.db")}, map[string]string{"KVDECK_DB": "file:" + path("env.db")}, "flag.db"},
		{nil, map[string]string{"KVDECK_DB": path("kvdeck-env.db"), "LIBSQL_URL": path("libsql.db"), "TURSO_DATABASE_URL": path("turso.db")}, "kvdeck-env.db"},
		{nil, map[string]string{"KVDECK_DB": "", "LIBSQL_URL": path("libsql.db"), "TURSO_DATABASE_URL": path("turso.db")}, "libsql.db"},
		{nil, map[string]string{"TURSO_DATABASE_URL": "file:" + path("turso.db")}, "turso.db"},
	}
	for _, tc := range cases {
		r := runMain(t, tc.env, "", append(tc.args, "set", `["k"]`, "1"))
		if r.code != 0 {
			t.Fatalf("%v %v: exit %d: %s", tc.args, tc.env, r.code, r.stderr)
		}
		if _, err := os.Stat(path(tc.want)); err != nil {
			t.Errorf("%v %v: %s was not written: %v", tc.args, tc.env, tc.want, err)
		}
		os.Remove(path(tc.want))
	}
	t.Chdir(dir)
	if r := runMain(t, nil, "", []string{"set", `["k"]`, "1"}); r.code != 0 {
		t.Fatalf("default database: exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(path("kvdeck.db")); err != nil {
		t.Errorf("the default database kvdeck.db was not created in the current directory: %v", err)
	}
}

func TestClockFlags(t *testing.T) {
	url := "file:" + filepath.Join(t.TempDir(), "kv.db")
	run := func(args ...string) result { return runMain(t, nil, "", append([]string{"--db", url}, args...)) }
	if r := run("--now", "2026-01-02T00:00:00Z", "set", `["k"]`, "1", "--expire-in", "1m"); r.code != 0 {
		t.Fatalf("set: %d %s", r.code, r.stderr)
	}
	if r := run("--now", "1767312059999", "-o", "json", "get", `["k"]`); r.code != 0 || !strings.Contains(r.stdout, `"expiresAt":1767312060000`) {
		t.Fatalf("--now as RFC 3339 then epoch ms: %d %s %s", r.code, r.stdout, r.stderr)
	}
	// The real clock is past 2026-01-02T00:00:00Z; ten years back the row is
	// live.
	if r := run("--clock-offset=-87600h", "get", `["k"]`); r.code != 0 {
		t.Fatalf("--clock-offset: %d %s", r.code, r.stderr)
	}
	if r := run("--clock-offset=+876000h", "get", `["k"]`); r.code != CodeNotDone {
		t.Fatalf("--clock-offset 100 years ahead: exit %d, want 1 (expired): %s", r.code, r.stderr)
	}
	for _, bad := range []string{"0", "yesterday", "-5"} {
		if r := run("--now", bad, "get", `["k"]`); r.code != CodeError || !strings.Contains(r.stderr, "--now") {
			t.Errorf("--now %s: exit %d, stderr %q", bad, r.code, r.stderr)
		}
	}
}

func TestTUI(t *testing.T) {
	url := "file:" + filepath.Join(t.TempDir(), "kv.db")
	var got tuiconfig.Config
	var calls int
	runner := func(ctx context.Context, s *store.Store, cfg tuiconfig.Config) error {
		calls++
		got = cfg
		if s == nil || s.Now() != storetest.T0 {
			t.Errorf("the TUI got store %v with clock %d", s, s.Now())
		}
		other, err := cfg.Open(ctx, url)
		if err != nil {
			t.Errorf("Open: %v", err)
		} else if !other.ReadOnly() {
			t.Errorf("Open did not keep --read-only")
		}
		return nil
	}
	if r := runMain(t, nil, "", []string{"--db", url, "set", `["k"]`, "1"}); r.code != 0 {
		t.Fatal(r.stderr)
	}
	for _, args := range [][]string{
		{"--db", url, "--now", "1767312000000", "--read-only"},
		{"--db", url, "--now", "1767312000000", "--read-only", "tui", "--refresh", "250ms", "--theme", "dark"},
		{"--db", url, "--now", "1767312000000", "--read-only", "--refresh", "250ms", "--theme", "dark"},
	} {
		calls = 0
		r := runMain(t, nil, "", args, WithTUI(runner))
		if r.code != 0 || calls != 1 {
			t.Fatalf("%v: exit %d, %d calls: %s", args, r.code, calls, r.stderr)
		}
		if got.Clock == nil || got.Clock.Now() != storetest.T0 || got.Clock.Describe() == "" {
			t.Errorf("%v: clock %v", args, got.Clock)
		}
	}
	if got.Theme != "dark" || got.Refresh != 250*time.Millisecond {
		t.Errorf("theme %q refresh %s; want dark, 250ms", got.Theme, got.Refresh)
	}
	r := runMain(t, nil, "", []string{"--db", url})
	if r.code != CodeError || !strings.Contains(r.stderr, "no TUI") {
		t.Errorf("without a TUI runner: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runMain(t, nil, "", []string{"--db", url, "--theme", "neon"}, WithTUI(runner))
	if r.code != CodeError || !strings.Contains(r.stderr, "--theme") {
		t.Errorf("--theme neon: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runMain(t, nil, "", []string{"--db", url, "tui", "--refresh", "0s"}, WithTUI(runner))
	if r.code != CodeError || !strings.Contains(r.stderr, "--refresh") {
		t.Errorf("--refresh 0s: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"get", "--help"}, {"key", "encode", "--help"}} {
		r := runMain(t, nil, "", args)
		if r.code != 0 || !strings.Contains(r.stdout, "Usage: kvdeck") || r.stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
}

// TestSideTokensNeverEchoed: the tokens of one side of a two-store
// command (--from-auth-token, --a-auth-token, KVDECK_COPY_TO_AUTH_TOKEN,
// …) are redacted from stderr as --auth-token's are. Before, only
// --auth-token and the global variables were.
func TestSideTokensNeverEchoed(t *testing.T) {
	const secret = "SIDESECRETVALUE"
	db := "file:" + filepath.Join(t.TempDir(), "kv.db")
	for _, c := range []struct {
		env  map[string]string
		args []string
	}{
		{nil, []string{"copy", "--from-auth-token", secret, "--from", db, "--to", db + "2", secret}},
		{nil, []string{"copy", "--to-auth-token=" + secret, "--from", db, "--to", db + "2", secret}},
		{nil, []string{"diff", "--a-auth-token", secret, "--prefix", secret, db, db}},
		{map[string]string{"KVDECK_COPY_FROM_AUTH_TOKEN": secret}, []string{"copy", "--from", db, "--to", db + "2", secret}},
		{map[string]string{"KVDECK_DIFF_B_AUTH_TOKEN": secret}, []string{"diff", "--prefix", secret, db, db}},
	} {
		r := runMain(t, c.env, "", c.args)
		if r.code != CodeError || strings.Contains(r.stderr+r.stdout, secret) || !strings.Contains(r.stderr, "<redacted>") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with the token redacted", c.args, r.code, r.stderr)
		}
	}
}
