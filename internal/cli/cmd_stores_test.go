package cli

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
)

// storesEnv is an environment whose config directory is the test's own.
func storesEnv(t *testing.T) map[string]string {
	t.Helper()
	return map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "XDG_STATE_HOME": t.TempDir()}
}

// configFile writes the config of env by hand, with mode.
func configFile(t *testing.T, env map[string]string, text string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(env["XDG_CONFIG_HOME"], "kvdeck", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// fileStore makes a store file holding ["which"] = name.
func fileStore(t *testing.T, env map[string]string, name string) string {
	t.Helper()
	url := "file:" + filepath.Join(t.TempDir(), name+".db")
	if r := runMain(t, env, "", []string{"--db", url, "set", `["which"]`, `"` + name + `"`}); r.code != 0 {
		t.Fatalf("seed %s: %+v", name, r)
	}
	return url
}

// which runs `get ["which"]` with args and env and returns the store's name
// (or the failure).
func which(t *testing.T, env map[string]string, args ...string) (string, result) {
	t.Helper()
	r := runMain(t, env, "", append(args, "-o", "json", "get", `["which"]`))
	if r.code != 0 {
		return "", r
	}
	var e struct{ Value string }
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
		t.Fatalf("get output %q: %v", r.stdout, err)
	}
	return e.Value, r
}

func TestStoresAddListShowRemove(t *testing.T) {
	env := storesEnv(t)
	if r := runMain(t, env, "", []string{"stores"}); r.code != 0 || !strings.Contains(r.stdout, "no saved stores") {
		t.Fatalf("empty list: %+v", r)
	}
	// dev.db is not there yet: said, and saved only with --force.
	if r := runMain(t, env, "", []string{"stores", "add", "dev", "dev.db", "--group", "dev", "--writable"}); r.code != CodeError ||
		!strings.Contains(r.stderr, "no database at ") || !strings.Contains(r.stderr, "`kvdeck --store dev init` creates one") || !strings.Contains(r.stderr, "saved nothing: --force saves") {
		t.Fatalf("add dev, missing: %+v", r)
	}
	if r := runMain(t, env, "", []string{"stores", "add", "dev", "dev.db", "--group", "dev", "--writable", "--force"}); r.code != 0 || !strings.Contains(r.stderr, "saved all the same (--force)") {
		t.Fatalf("add dev: %+v", r)
	}
	if r := runMain(t, env, "lit-token-42\n", []string{"stores", "add", "prod", "http://127.0.0.1:9", "-g", "prod", "--token-stdin"}); r.code != 0 {
		t.Fatalf("add prod: %+v", r)
	}
	if r := runMain(t, env, "", []string{"stores", "add", "prod", "x.db"}); r.code != CodeError || !strings.Contains(r.stderr, "--replace") {
		t.Fatalf("add over prod: %+v", r)
	}
	path := filepath.Join(env["XDG_CONFIG_HOME"], "kvdeck", "config.toml")
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("config: %v %v", info, err)
	}
	text, _ := os.ReadFile(path)
	cwd, _ := os.Getwd()
	if !strings.Contains(string(text), `url = "file:`+filepath.Join(cwd, "dev.db")+`"`) {
		t.Fatalf("a relative file path is saved absolute:\n%s", text)
	}

	list := runMain(t, env, "", []string{"stores", "list"})
	if list.code != 0 || len(lines(list.stdout)) != 3 || !strings.HasPrefix(list.stdout, "NAME") || !strings.Contains(list.stdout, "prod  prod   read-only") ||
		!strings.Contains(list.stdout, "dev   dev    writable") || !strings.Contains(list.stdout, " literal\n") {
		t.Fatalf("list:\n%s%s", list.stdout, list.stderr)
	}
	group := runMain(t, env, "", []string{"-o", "json", "stores", "list", "--group", "dev"})
	var row storeJSON
	if err := json.Unmarshal([]byte(group.stdout), &row); err != nil || row.Name != "dev" || row.ReadOnly || len(lines(group.stdout)) != 1 {
		t.Fatalf("list --group dev: %q %v", group.stdout, err)
	}
	show := runMain(t, env, "", []string{"stores", "show", "prod"})
	if show.code != 0 || !strings.Contains(show.stdout, "http://127.0.0.1:9") || !strings.Contains(show.stdout, "token   literal") ||
		!strings.Contains(show.stdout, "mode    read-only (--write opens it to write)") {
		t.Fatalf("show:\n%s%s", show.stdout, show.stderr)
	}
	// A writable store's mode names the flag that changes it: --read-only.
	if show := runMain(t, env, "", []string{"stores", "show", "dev"}); !strings.Contains(show.stdout, "mode    writable (--read-only opens it read-only)") {
		t.Fatalf("show dev:\n%s%s", show.stdout, show.stderr)
	}
	for _, r := range []result{list, group, show} {
		if strings.Contains(r.stdout+r.stderr, "lit-token-42") {
			t.Fatalf("a token was printed: %+v", r)
		}
	}
	if r := runMain(t, env, "", []string{"stores", "remove", "prod"}); r.code != 0 {
		t.Fatalf("remove: %+v", r)
	}
	if r := runMain(t, env, "", []string{"stores", "show", "prod"}); r.code != CodeError || !strings.Contains(r.stderr, `unknown store "prod": saved stores are dev`) {
		t.Fatalf("show removed: %+v", r)
	}
}

// TestStorePrecedence: flag, then environment, then the config's default.
func TestStorePrecedence(t *testing.T) {
	env := storesEnv(t)
	a, b, c, d := fileStore(t, env, "a"), fileStore(t, env, "b"), fileStore(t, env, "c"), fileStore(t, env, "d")
	configFile(t, env, `default = "c"
[stores.a]
url = "`+a+`"
[stores.b]
url = "`+b+`"
[stores.c]
url = "`+c+`"
`, 0o600)
	with := func(kv ...string) map[string]string {
		e := map[string]string{}
		for k, v := range env {
			e[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			e[kv[i]] = kv[i+1]
		}
		return e
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"config default", env, nil, "c"},
		{"KVDECK_STORE over the default", with("KVDECK_STORE", "a"), nil, "a"},
		{"KVDECK_DB over the default", with("KVDECK_DB", d), nil, "d"},
		{"LIBSQL_URL over the default", with("LIBSQL_URL", d), nil, "d"},
		{"KVDECK_STORE over LIBSQL_URL", with("KVDECK_STORE", "a", "LIBSQL_URL", d), nil, "a"},
		{"--store over KVDECK_STORE", with("KVDECK_STORE", "a"), []string{"--store", "b"}, "b"},
		{"-s over KVDECK_DB", with("KVDECK_DB", d), []string{"-s", "b"}, "b"},
		{"--db over KVDECK_STORE", with("KVDECK_STORE", "a"), []string{"--db", d}, "d"},
		{"--db over the default", env, []string{"--db", d}, "d"},
	} {
		got, r := which(t, tc.env, tc.args...)
		if got != tc.want {
			t.Errorf("%s: got store %q (%+v), want %q", tc.name, got, r, tc.want)
		}
	}
	// Without HOME and XDG_CONFIG_HOME there is no config and no default.
	if _, r := which(t, map[string]string{"XDG_STATE_HOME": t.TempDir()}, "--store", "a"); r.code != CodeError || !strings.Contains(r.stderr, "neither XDG_CONFIG_HOME nor HOME") {
		t.Errorf("no config directory: %+v", r)
	}
}

func TestStoreRefusals(t *testing.T) {
	env := storesEnv(t)
	a := fileStore(t, env, "a")
	path := configFile(t, env, `[stores.a]
url = "`+a+`"
[stores.lit]
url = "http://127.0.0.1:9"
token = "world-readable-token-77"
[stores.cmd]
url = "http://127.0.0.1:9"
token_command = "echo cmd-token-88; echo 'pass: gpg: decryption failed: No secret key' >&2; exit 2"
`, 0o644)
	cases := []struct {
		name  string
		env   map[string]string
		args  []string
		wants []string
	}{
		{"unknown store", env, []string{"--store", "stage"}, []string{`--store: unknown store "stage": saved stores are a, cmd, lit`}},
		{"unknown KVDECK_STORE", map[string]string{"XDG_CONFIG_HOME": env["XDG_CONFIG_HOME"], "KVDECK_STORE": "stage"}, nil, []string{`KVDECK_STORE: unknown store "stage": saved stores are a, cmd, lit`}},
		{"literal token, world-readable", env, []string{"-s", "lit"}, []string{`store "lit"`, "mode 0644", "chmod 600 " + path, "token_env or token_command"}},
		{"failing token command", env, []string{"-s", "cmd"}, []string{`store "cmd": token_command failed (exit status 2: pass: gpg: decryption failed: No secret key)`}},
		{"--db and --store", env, []string{"--db", a, "--store", "a"}, []string{"give --db or --store, not both"}},
		{"KVDECK_DB and KVDECK_STORE", map[string]string{"XDG_CONFIG_HOME": env["XDG_CONFIG_HOME"], "KVDECK_STORE": "a", "KVDECK_DB": a}, nil, []string{"both KVDECK_DB and KVDECK_STORE are set"}},
	}
	for _, tc := range cases {
		_, r := which(t, tc.env, tc.args...)
		if r.code != CodeError {
			t.Errorf("%s: exit %d, want %d (%+v)", tc.name, r.code, CodeError, r)
		}
		for _, w := range tc.wants {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: stderr %q lacks %q", tc.name, r.stderr, w)
			}
		}
		if strings.Contains(r.stdout+r.stderr, "-token-") {
			t.Errorf("%s: a token was printed: %+v", tc.name, r)
		}
	}
	// Commands that open no store of the flags are not stopped by them.
	bad := map[string]string{"XDG_CONFIG_HOME": env["XDG_CONFIG_HOME"], "KVDECK_STORE": "stage"}
	for _, args := range [][]string{{"stores", "list"}, {"key", "encode", `["a"]`}, {"version"}} {
		if r := runMain(t, bad, "", args); r.code != 0 {
			t.Errorf("%v with KVDECK_STORE=stage: %+v", args, r)
		}
	}
	// Once the file is private the literal token is used (and the store,
	// a closed port, is unreachable: the error does not show the token).
	_ = os.Chmod(path, 0o600)
	if _, r := which(t, env, "-s", "lit"); r.code != CodeError || !strings.Contains(r.stderr, "unreachable") || strings.Contains(r.stderr, "world-readable-token-77") {
		t.Errorf("literal token, 0600: %+v", r)
	}
}

func TestSavedStoreReadOnly(t *testing.T) {
	env := storesEnv(t)
	a := fileStore(t, env, "a")
	configFile(t, env, `[stores.ro]
url = "`+a+`"
[stores.rw]
url = "`+a+`"
read_only = false
`, 0o600)
	r := runMain(t, env, "", []string{"-s", "ro", "set", `["k"]`, "1"})
	if r.code != CodeError || !strings.Contains(r.stderr, "set refused; store ro is saved read-only; give --write to write to it") {
		t.Fatalf("set on a read-only store: %+v", r)
	}
	if r := runMain(t, env, "", []string{"-s", "ro", "--write", "set", `["k"]`, "1"}); r.code != 0 {
		t.Fatalf("set --write: %+v", r)
	}
	if r := runMain(t, env, "", []string{"-s", "rw", "set", `["k"]`, "2"}); r.code != 0 {
		t.Fatalf("set on a writable store: %+v", r)
	}
	if r := runMain(t, env, "", []string{"-s", "rw", "--read-only", "set", `["k"]`, "3"}); r.code != CodeError || !strings.Contains(r.stderr, "opened with --read-only") {
		t.Fatalf("--read-only on a writable store: %+v", r)
	}
	if r := runMain(t, env, "", []string{"-s", "ro", "--read-only", "--write", "get", `["k"]`}); r.code != CodeError {
		t.Fatalf("--read-only with --write: %+v", r)
	}
	if name, r := which(t, env, "-s", "ro"); name != "a" {
		t.Fatalf("read on a read-only store: %+v", r)
	}
}

// TestSavedStoreTokenIsItsOwn: a saved store gets the token its entry
// names (here from a command), and the token variables meant for --db are
// not sent to it; the token never shows in an error.
func TestSavedStoreTokenIsItsOwn(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithJWT())
	tok := srv.Token(t)
	env := storesEnv(t)
	env["SRV_TOKEN"] = tok
	configFile(t, env, `[stores.own]
url = "`+srv.URL+`"
token_command = "printf '%s' \"$SRV_TOKEN\""
read_only = false
[stores.none]
url = "`+srv.URL+`"
[stores.short]
url = "`+fileStore(t, env, "short")+`"
token_env = "SHORT_TOKEN"
`, 0o600)
	env["SHORT_TOKEN"] = "shorttok1"
	if r := runMain(t, env, "", []string{"-s", "own", "set", `["which"]`, `"own"`}); r.code != 0 {
		t.Fatalf("set with the command's token: %+v", r)
	}
	if got, r := which(t, env, "-s", "own"); got != "own" {
		t.Fatalf("get: %+v", r)
	}
	// An error quoting what was typed redacts a saved store's token (a
	// short one, which errors quote whole; a file takes no token).
	r := runMain(t, env, "", []string{"-s", "short", "--now", "shorttok1", "get", `["which"]`})
	if r.code != CodeError || !strings.Contains(r.stderr, "<redacted>") || strings.Contains(r.stderr+r.stdout, "shorttok1") {
		t.Fatalf("the token was printed: %+v", r)
	}
	env["KVDECK_AUTH_TOKEN"] = tok
	if _, r := which(t, env, "-s", "none"); r.code != CodeError || !strings.Contains(r.stderr, "not authorized") {
		t.Fatalf("a saved store without a token got $KVDECK_AUTH_TOKEN: %+v", r)
	}
	if got, r := which(t, env, "-s", "none", "--auth-token", tok); got != "own" {
		t.Fatalf("--auth-token over the saved store's (none): %+v", r)
	}
}

// TestDemoTakesOnlyTheStoreFlag: the demo seeds fake state, so like
// KVDECK_DB it ignores KVDECK_STORE and the default, and follows --store.
func TestDemoTakesOnlyTheStoreFlag(t *testing.T) {
	env := storesEnv(t)
	dir := t.TempDir()
	url := "file:" + filepath.Join(dir, "saved.db")
	configFile(t, env, `default = "ro"
[stores.ro]
url = "`+filepath.Join(dir, "ro.db")+`"
[stores.rw]
url = "`+url+`"
read_only = false
`, 0o600)
	env["KVDECK_STORE"] = "ro"
	r := runMain(t, env, "", []string{"-s", "rw", "-o", "json", "demo", "--headless", "--duration", "300ms", "--tick", "100ms", "--seed", "5"})
	if r.code != 0 || !strings.Contains(r.stdout, `"db":"`+url+`"`) {
		t.Fatalf("demo -s rw: %+v", r)
	}
	// Without the flag: kvdeck-demo.db here, whatever KVDECK_STORE and
	// the default say (ro is saved read-only: following it would refuse).
	here := t.TempDir()
	t.Chdir(here)
	r = runMain(t, env, "", []string{"-o", "json", "demo", "--headless", "--duration", "300ms", "--tick", "100ms", "--seed", "5"})
	if r.code != 0 || !strings.Contains(r.stdout, `"db":"file:kvdeck-demo.db"`) {
		t.Fatalf("demo with KVDECK_STORE: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "ro.db")); err == nil {
		t.Fatal("the demo seeded the store of KVDECK_STORE")
	}
	if _, err := os.Stat(filepath.Join(here, "kvdeck-demo.db")); err != nil {
		t.Fatal(err)
	}
}

// TestStoresAddChecksTheFile: stores add of a database file that is
// missing or is not a kvdeck store says so, and saves it only when asked
// (a yes on a terminal, or --force); a store's file, and a server, are
// saved without a word. Both were saved silently.
func TestStoresAddChecksTheFile(t *testing.T) {
	env := storesEnv(t)
	dir := t.TempDir()
	other := "file:" + filepath.Join(dir, "other.db")
	storetest.Exec(t, other, "CREATE TABLE people (name TEXT)")
	tty := func(o *options) { o.terminal = func(io.Reader) bool { return true } }
	saved := func() string {
		return runMain(t, env, "", []string{"stores", "list"}).stdout
	}
	for _, c := range []struct {
		name, url, says string
	}{
		{"gone", "file:" + filepath.Join(dir, "gone.db"), "no database at " + filepath.Join(dir, "gone.db") + " yet (`kvdeck --store gone --write init` creates one)"},
		{"other", other, "not a kvdeck store"},
	} {
		r := runMain(t, env, "", []string{"stores", "add", c.name, c.url})
		if r.code != CodeError || !strings.Contains(r.stderr, c.says) || !strings.Contains(r.stderr, "saved nothing: --force saves store "+c.name) || strings.Contains(saved(), c.name) {
			t.Errorf("%s, no terminal: %+v", c.name, r)
		}
		r = runMain(t, env, "n\n", []string{"stores", "add", c.name, c.url}, tty)
		if r.code != CodeNotDone || !strings.Contains(r.stderr, c.says) || !strings.Contains(r.stderr, "Save store "+c.name+" all the same? [y/N]") || strings.Contains(saved(), c.name) {
			t.Errorf("%s, answered n: %+v", c.name, r)
		}
		r = runMain(t, env, "y\n", []string{"stores", "add", c.name, c.url}, tty)
		if r.code != 0 || !strings.Contains(saved(), c.name+" ") {
			t.Errorf("%s, answered y: %+v\n%s", c.name, r, saved())
		}
		r = runMain(t, env, "", []string{"stores", "add", c.name, c.url, "--replace", "--force"})
		if r.code != 0 || !strings.Contains(r.stderr, c.says) || !strings.Contains(r.stderr, "saved all the same (--force)") {
			t.Errorf("%s, --force: %+v", c.name, r)
		}
	}
	good := fileStore(t, env, "good")
	for _, args := range [][]string{{"stores", "add", "good", good}, {"stores", "add", "far", "http://127.0.0.1:9"}} {
		if r := runMain(t, env, "", args); r.code != 0 || r.stderr != "" {
			t.Errorf("%v: %+v", args, r)
		}
	}
}
