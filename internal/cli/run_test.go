package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestMissingArgumentSaysWhatAndWhere: a command typed without its
// argument names the argument and what it is, and points to that
// command's help, not to kvdeck --help (`kvdeck watch`
// said `expected "<key> ..." (see kvdeck --help)`).
func TestMissingArgumentSaysWhatAndWhere(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"watch"}, "kvdeck: watch: missing KEY...: keys to watch; each also watches the keys under it (a prefix) unless --exact (see kvdeck watch --help)\n"},
		{[]string{"lease", "acquire"}, "kvdeck: lease acquire: missing KEY: the lease key, e.g. '[\"dwk_lease\", \"Cart\", \"0e58...\"]' (see kvdeck lease acquire --help)\n"},
		{[]string{"diff", "a.jsonl"}, "kvdeck: diff: missing B: the other store or dump file (see kvdeck diff --help)\n"},
		{[]string{"get", "--bogus"}, "kvdeck: unknown flag --bogus (see kvdeck get --help)\n"},
		{[]string{"bogus"}, "kvdeck: unexpected argument bogus (see kvdeck --help)\n"},
	} {
		r := runMain(t, nil, "", tc.args)
		if r.code != CodeError || r.stderr != tc.want {
			t.Errorf("kvdeck %s: exit %d, stderr %q; want 2 and %q", strings.Join(tc.args, " "), r.code, r.stderr, tc.want)
		}
	}
}

// TestHelpNamesEveryJSONDefault: the global --output help names every
// command whose output is JSON unless -o text is given (it named dump only,
// and watch defaults to JSON too).
func TestHelpNamesEveryJSONDefault(t *testing.T) {
	var names []string
	root := reflect.TypeFor[Root]()
	for i := range root.NumField() {
		f := root.Field(i)
		if _, ok := f.Tag.Lookup("cmd"); ok && reflect.PointerTo(f.Type).Implements(reflect.TypeFor[jsonDefaulter]()) {
			names = append(names, strings.ToLower(f.Name))
		}
	}
	if len(names) < 2 {
		t.Fatalf("commands defaulting to JSON: %v; want dump and watch at least", names)
	}
	r := runMain(t, nil, "", []string{"--help"})
	help := strings.Join(strings.Fields(r.stdout), " ")
	i := strings.Index(help, "--output=text|json")
	if i < 0 {
		t.Fatalf("no --output in the help: %s", r.stdout)
	}
	line, _, _ := strings.Cut(help[i:], " --theme")
	want := strings.Join(names, " and ") + " default to json"
	if !strings.Contains(line, want) {
		t.Errorf("--output help %q does not say %q", line, want)
	}
}

// TestEveryCommandRemovesStaleEditDirs: the private directory a TUI
// killed with SIGKILL left (its process gone, no editor running on it,
// a value file inside) is removed by the next kvdeck command of any
// kind, not only by the next TUI; a live session's stays. Before, only
// a TUI start removed it.
func TestEveryCommandRemovesStaleEditDirs(t *testing.T) {
	base := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(base, "kvdeck-edit-"+strconv.Itoa(dead.Process.Pid)+"-1")
	live := filepath.Join(base, "kvdeck-edit-"+strconv.Itoa(os.Getpid())+"-2")
	for _, d := range []string{stale, live} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "value-1.json"), []byte(`{"secret":1}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if r := runMain(t, map[string]string{"XDG_RUNTIME_DIR": base}, "", []string{"key", "encode", `["a"]`}); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead session's directory stays after a command: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live session's directory was removed: %v", err)
	}
}
