package storeconfig

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func writeConfig(t *testing.T, text string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kvdeck", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return path
}

func TestPath(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
		err  error
	}{
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/kvdeck/config.toml", nil},
		{map[string]string{"XDG_CONFIG_HOME": "rel", "HOME": "/h"}, "/h/.config/kvdeck/config.toml", nil}, // XDG: relative paths are ignored
		{map[string]string{"HOME": "/h"}, "/h/.config/kvdeck/config.toml", nil},
		{map[string]string{}, "", ErrNoHome},
	} {
		got, err := Path(c.env)
		if filepath.ToSlash(got) != c.want || !errors.Is(err, c.err) {
			t.Errorf("Path(%v) = %q, %v; want %q, %v", c.env, got, err, c.want, c.err)
		}
	}
}

func TestLoadChecks(t *testing.T) {
	missing, err := Load(filepath.Join(t.TempDir(), "none.toml"))
	if err != nil || len(missing.Stores) != 0 {
		t.Fatalf("a missing file: %v, %v", missing, err)
	}
	for _, c := range []struct{ text, want string }{
		{"[stores.a]\nurl = \"x.db\"\ntokn = \"X\"\n", "unknown key stores.a.tokn"},
		{"[stores.a]\ngroup = \"g\"\n", `store "a" has no url`},
		{"[stores.a]\nurl = \"x\"\ntoken_env = \"A\"\ntoken_command = \"echo\"\n", "more than one of"},
		{"default = \"b\"\n[stores.a]\nurl = \"x\"\n", `default = "b" names no saved store (saved: a)`},
		{"[stores.a\n", "bad config"},
	} {
		_, err := Load(writeConfig(t, c.text, 0o600))
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}

func TestGetNamesTheSavedStores(t *testing.T) {
	cfg, err := Load(writeConfig(t, "[stores.prod]\nurl = \"a.db\"\n[stores.dev]\nurl = \"b.db\"\nread_only = false\n", 0o600))
	if err != nil {
		t.Fatal(err)
	}
	_, err = cfg.Get("stage")
	if !errors.Is(err, ErrUnknownStore) || !strings.Contains(err.Error(), "saved stores are dev, prod") {
		t.Fatalf("Get(stage) = %v", err)
	}
	if !cfg.Stores["prod"].IsReadOnly() || cfg.Stores["dev"].IsReadOnly() {
		t.Fatalf("read_only absent must be read-only, false writable: %+v", cfg.Stores)
	}
}

func TestLiteralTokenOnlyFromAPrivateFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no mode bits")
	}
	text := "[stores.a]\nurl = \"http://h:1\"\ntoken = \"s3cret-literal\"\n"
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604} {
		cfg, err := Load(writeConfig(t, text, mode))
		if err != nil {
			t.Fatal(err)
		}
		tok, err := cfg.Token(context.Background(), cfg.Stores["a"], nil)
		if !errors.Is(err, ErrToken) || tok != "" || !strings.Contains(err.Error(), "readable beyond its owner") ||
			!strings.Contains(err.Error(), "chmod 600") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("mode %04o: %q, %v", mode, tok, err)
		}
	}
	cfg, err := Load(writeConfig(t, text, 0o600))
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := cfg.Token(context.Background(), cfg.Stores["a"], nil); tok != "s3cret-literal" || err != nil {
		t.Fatalf("0600: %q, %v", tok, err)
	}

	// token_file follows the same rule.
	dir := t.TempDir()
	tf := filepath.Join(dir, "tok")
	if err := os.WriteFile(tf, []byte("from-file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(tf, 0o644)
	s := Store{Name: "f", URL: "http://h:1", TokenFile: tf}
	if _, err := cfg.Token(context.Background(), s, nil); !errors.Is(err, ErrToken) || !strings.Contains(err.Error(), "mode 0644") {
		t.Fatalf("token_file 0644: %v", err)
	}
	_ = os.Chmod(tf, 0o600)
	if tok, err := cfg.Token(context.Background(), s, nil); tok != "from-file" || err != nil {
		t.Fatalf("token_file 0600: %q, %v", tok, err)
	}
}

func TestTokenCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh")
	}
	cfg := &Config{Path: "x"}
	ctx := context.Background()
	ok := Store{Name: "a", TokenCommand: `printf '%s\n' "$SECRET_SRC"`}
	if tok, err := cfg.Token(ctx, ok, map[string]string{"SECRET_SRC": "tok-123"}); tok != "tok-123" || err != nil {
		t.Fatalf("command: %q, %v", tok, err)
	}
	// A failing command: its stderr summarised (first line, sanitised),
	// what it printed on stdout (perhaps a token) never shown.
	bad := Store{Name: "a", TokenCommand: `echo half-token-xyz; echo "vault is locked: half-token-xyz" >&2; printf 'second\033[31m\n' >&2; exit 3`}
	tok, err := cfg.Token(ctx, bad, nil)
	if !errors.Is(err, ErrToken) || tok != "" {
		t.Fatalf("failing command: %q, %v", tok, err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "exit status 3") || !strings.Contains(msg, "vault is locked: <redacted>") ||
		strings.Contains(msg, "half-token-xyz") || strings.Contains(msg, "second") {
		t.Fatalf("failing command's error: %s", msg)
	}
	empty := Store{Name: "a", TokenCommand: `true`}
	if _, err := cfg.Token(ctx, empty, nil); !errors.Is(err, ErrToken) || !strings.Contains(err.Error(), "empty token") {
		t.Fatalf("empty output: %v", err)
	}
	env := Store{Name: "a", TokenEnv: "NOPE_TOKEN"}
	if _, err := cfg.Token(ctx, env, nil); !errors.Is(err, ErrToken) || !strings.Contains(err.Error(), "$NOPE_TOKEN is not set") {
		t.Fatalf("unset variable: %v", err)
	}
}

func TestAddRemoveKeepTheRestOfTheFile(t *testing.T) {
	// What add and remove keep of the file: all but the table removed.
	const kept = `# my stores
default = "prod"

# production, careful
[stores.prod]
url = "libsql://prod.example" # the primary
token_command = "pass show kv/prod"

# staging comes next
`
	text := kept + `[ stores."stage" ]
url = "http://stage:8080"
read_only = false
`
	path := writeConfig(t, text, 0o644)
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	ro := false
	if err := cfg.Add(Store{Name: "dev", URL: "file:/tmp/dev.db", Group: "dev", ReadOnly: &ro}, false); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Add(Store{Name: "dev", URL: "file:/tmp/x.db"}, false); err == nil || !strings.Contains(err.Error(), "--replace") {
		t.Fatalf("adding a saved name: %v", err)
	}
	if err := cfg.Remove("stage"); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Remove("prod"); err == nil || !strings.Contains(err.Error(), "is the default") {
		t.Fatalf("removing the default: %v", err)
	}
	got, _ := os.ReadFile(path)
	want := kept + `
[stores.dev]
url = "file:/tmp/dev.db"
read_only = false
group = "dev"
`
	if string(got) != want {
		t.Fatalf("file after add and remove:\n%s\nwant:\n%s", got, want)
	}
	info, _ := os.Stat(path)
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Fatalf("written mode %04o, want 0600", info.Mode().Perm())
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
	again, err := Load(path)
	if err != nil || again.Stores["dev"].Group != "dev" || len(again.Stores) != 2 {
		t.Fatalf("reloaded: %+v, %v", again, err)
	}

	// Replace cuts the old table and appends the new one.
	if err := again.Add(Store{Name: "dev", URL: "file:/tmp/y.db"}, true); err != nil {
		t.Fatal(err)
	}
	third, _ := Load(path)
	if third.Stores["dev"].URL != "file:/tmp/y.db" || !third.Stores["dev"].IsReadOnly() || third.Stores["prod"].TokenCommand == "" {
		t.Fatalf("after replace: %+v", third.Stores)
	}
}

func TestAddCreatesPrivateDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", "kvdeck", "config.toml")
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Add(Store{Name: "a", URL: "x.db", Token: "lit"}, false); err != nil {
		t.Fatal(err)
	}
	di, _ := os.Stat(filepath.Dir(path))
	fi, _ := os.Stat(path)
	if runtime.GOOS != "windows" && (di.Mode().Perm() != 0o700 || fi.Mode().Perm() != 0o600) {
		t.Fatalf("dir %04o file %04o", di.Mode().Perm(), fi.Mode().Perm())
	}
	if err := cfg.Add(Store{Name: "b c", URL: "x.db"}, false); err == nil {
		t.Fatal("a name with a space was saved")
	}
}

func TestEditRefusedWhereLinesCannotSay(t *testing.T) {
	// Stores written as an inline table: appending a [stores.x] table
	// would redefine it; the check after the edit refuses, nothing is written.
	text := "stores = { a = { url = \"a.db\" } }\n"
	path := writeConfig(t, text, 0o600)
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Add(Store{Name: "b", URL: "b.db"}, false); err == nil || !strings.Contains(err.Error(), "edit it by hand") {
		t.Fatalf("add into an inline table: %v", err)
	}
	if err := cfg.Remove("a"); err == nil || !strings.Contains(err.Error(), "edit the file by hand") {
		t.Fatalf("remove from an inline table: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != text {
		t.Fatalf("file changed: %q", got)
	}
}

// gone reports whether the process pid has ended (a zombie counts: it
// runs nothing and holds no pipe).
func gone(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true
	}
	_, after, _ := strings.Cut(string(b), ") ")
	return strings.HasPrefix(after, "Z")
}

// TestTokenCommandKeepsItsBound: a token command that hangs ends at the
// bound (the caller's deadline, else CommandTimeout), with every process
// it started killed, not when its last child lets go of the output; one
// that prints the token and leaves a background child holding its output
// gives the token at once. Before, both took as long as the child slept:
// the shell was killed, the sleep it forked kept the pipe open.
func TestTokenCommandKeepsItsBound(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cfg := &Config{Path: "x"}
	dir := t.TempDir()
	pidFile := func(name string) string { return filepath.Join(dir, name) }
	run := func(command string, bound time.Duration) (string, time.Duration, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		start := time.Now()
		type answer struct {
			tok string
			err error
		}
		ch := make(chan answer, 1)
		go func() {
			tok, err := cfg.Token(ctx, Store{Name: "a", TokenCommand: command}, nil)
			ch <- answer{tok, err}
		}()
		select {
		case a := <-ch:
			return a.tok, time.Since(start), a.err
		case <-time.After(bound + 10*time.Second):
			t.Fatalf("%q: no answer %s past its bound of %s", command, 10*time.Second, bound)
			return "", 0, nil
		}
	}
	// Hangs: the shell waits on a sleep that holds the output.
	tok, took, err := run("sleep 60 & echo $! > "+pidFile("hang")+"; wait", time.Second)
	if !errors.Is(err, ErrToken) || tok != "" || !strings.Contains(err.Error(), "no answer within 1s") {
		t.Errorf("hanging command: %q, %v", tok, err)
	}
	if took > 4*time.Second {
		t.Errorf("hanging command with a bound of 1s took %s", took)
	}
	// Prints the token at once and leaves a sleep holding the output.
	tok, took, err = run("printf tok-42; sleep 60 & echo $! > "+pidFile("bg"), time.Minute)
	if err != nil || tok != "tok-42" {
		t.Errorf("token then a background child: %q, %v", tok, err)
	}
	if took > 4*time.Second {
		t.Errorf("token then a background child took %s", took)
	}
	for _, name := range []string{"hang", "bg"} {
		b, err := os.ReadFile(pidFile(name))
		if err != nil {
			t.Fatal(err)
		}
		pid := strings.TrimSpace(string(b))
		deadline := time.Now().Add(2 * time.Second)
		for !gone(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if !gone(pid) {
			t.Errorf("%s: the command's child %s still runs", name, pid)
		}
	}
}

// TestTokenCommandRedactsPartialTokens: a failing token command's stderr
// is shown without any part of what it printed on stdout (a prefix, a
// middle, the whole) and without a word that looks like a token even
// when stdout had none; the rest of the line stays readable. Before, only
// the whole of stdout was cut out.
func TestTokenCommandRedactsPartialTokens(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("sh")
	}
	cfg := &Config{Path: "x"}
	jwt := "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJpYXQiOjE3MDAwMDAwMDB9.c2lnbmF0dXJlLXBhcnQ"
	for _, c := range []struct {
		command string
		secrets []string
		keep    []string
	}{
		{`echo tok-abcdef-123456; echo "vault is locked: tok-abcdef-12" >&2; exit 3`, []string{"tok-abcdef"}, []string{"vault is locked", "exit status 3"}},
		{`echo abcdefghijklmnopqrstuvwx; echo "bad secret ...ijklmnopq... in ~/.kv/token.gpg" >&2; exit 1`, []string{"ijklmnopq"}, []string{"bad secret", "~/.kv/token.gpg"}},
		{`echo "refused: ` + jwt[:40] + `" >&2; exit 1`, []string{jwt[:20]}, []string{"refused"}},
		{`echo "refused: Bearer ` + jwt + `" >&2; exit 1`, []string{jwt[:20], jwt[40:60]}, []string{"refused: Bearer"}},
	} {
		_, err := cfg.Token(context.Background(), Store{Name: "a", TokenCommand: c.command}, nil)
		if !errors.Is(err, ErrToken) {
			t.Fatalf("%q: %v", c.command, err)
		}
		msg := err.Error()
		for _, s := range c.secrets {
			if strings.Contains(msg, s) {
				t.Errorf("%q: the error shows %q: %s", c.command, s, msg)
			}
		}
		for _, s := range append(c.keep, "<redacted>") {
			if !strings.Contains(msg, s) {
				t.Errorf("%q: the error lacks %q: %s", c.command, s, msg)
			}
		}
	}
}

// FuzzRedact: whatever a command printed and wrote on stderr, the line
// redact returns holds no run of token characters long enough to be a
// piece of a printed word, and nothing outside the words is lost.
func FuzzRedact(f *testing.F) {
	f.Add("vault is locked: tok-abcdef-12", "tok-abcdef-123456\n")
	f.Add("refused: Bearer eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJ", "")
	f.Add("a\x1b[31mb c", "c")
	f.Fuzz(func(t *testing.T, line, stdout string) {
		got := redact(line, stdout)
		printed := strings.FieldsFunc(stdout, func(r rune) bool { return !tokenChar(r) })
		for _, w := range strings.FieldsFunc(got, func(r rune) bool { return !tokenChar(r) }) {
			if w != "redacted" && sharesRun(w, printed) {
				t.Fatalf("redact(%q, %q) = %q keeps %q", line, stdout, got, w)
			}
		}
		// Byte by byte (token characters are ASCII): by runes, the bytes
		// either side of a removed word could read as one new rune.
		strip := func(s string) string {
			var b []byte
			for i := range len(s) {
				if !tokenChar(rune(s[i])) {
					b = append(b, s[i])
				}
			}
			return string(b)
		}
		if strip(strings.ReplaceAll(got, "<redacted>", "")) != strip(line) {
			t.Fatalf("redact(%q, %q) = %q changed what lies between the words", line, stdout, got)
		}
	})
}
