package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
)

// TestLockMatrixCoversCommands: every leaf of the command tree is in the
// lock matrix: run as a reading surface, or named as a command that
// writes (its Writes() says so with its default flags) or that reads no
// store. A new command fails here until it is placed.
func TestLockMatrixCoversCommands(t *testing.T) {
	leaves := commandLeaves(t)
	placed := map[string]bool{}
	for _, c := range cliMatrix() {
		placed[c.cmd] = true
	}
	for cmd := range writesOnly() {
		placed[cmd] = true
	}
	for cmd := range readsNoStore() {
		placed[cmd] = true
	}
	for _, l := range leaves {
		if !placed[l.path] {
			t.Errorf("command %q is not in the lock matrix: add its reads to cliMatrix (or name it in writesOnly or readsNoStore)", l.path)
		}
		if _, ok := writesOnly()[l.path]; ok {
			w, isWriter := l.cmd.(writer)
			if !isWriter || w.Writes() == "" {
				t.Errorf("%s is named as writing only, but with its default flags it declares no write", l.path)
			}
		}
		delete(placed, l.path)
	}
	for cmd := range placed {
		t.Errorf("the lock matrix names %q, which is no command", cmd)
	}
}

// leaf is one runnable command of the kong tree.
type leaf struct {
	path string // "fleet status"
	cmd  any    // the command's struct, default flags
}

// commandLeaves walks the kong tree.
func commandLeaves(t *testing.T) []leaf {
	t.Helper()
	var root Root
	p, err := newParser(&root, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out []leaf
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		sub := false
		for _, c := range n.Children {
			if c.Type == kong.CommandNode {
				sub = true
				walk(c)
			}
		}
		if !sub && n.Type == kong.CommandNode {
			out = append(out, leaf{path: strings.TrimPrefix(n.FullPath(), "kvdeck "), cmd: n.Target.Addr().Interface()})
		}
	}
	walk(p.Model.Node)
	if len(out) < 20 {
		t.Fatalf("only %d commands found in the kong tree", len(out))
	}
	return out
}

// writesOnly are the commands that write the store with their default
// flags (a write takes the locks a write needs; the service's commit
// meets them as it meets any other writer's), each with why; sweep and
// undo also read with a flag (--dry-run, --list), and those runs are in
// cliMatrix.
func writesOnly() map[string]string {
	return map[string]string{
		"init": "creates the schema", "set": "a commit", "delete": "a delete", "load": "commits",
		"atomic": "a commit", "sweep": "deletes (sweep --dry-run reads: in the matrix)", "race": "commits",
		"demo": "seeds and writes", "lease acquire": "a commit", "lease release": "a commit", "lease break": "a commit",
		"alarm set": "a commit", "alarm delete": "a commit", "alarm fire": "commits",
		"queue send": "a commit", "queue poll": "takes messages", "queue purge": "deletes",
		"index add": "DDL", "index drop": "DDL", "undo": "a commit (undo --list reads: in the matrix)",
		"put-back": "a commit", "redo": "a commit", "wal": "switches the journal mode (refused while another process has the file open)",
	}
}

// readsNoStore are the commands that read no store, or whose reads are
// in another matrix, each with why.
func readsNoStore() map[string]string {
	return map[string]string{
		"tui":         "the TUI: tui's TestLockMatrixLarge runs its tabs and overlays",
		"key encode":  "no store",
		"key decode":  "no store",
		"version":     "no store",
		"completion":  "no store",
		"bench":       "its own scratch databases",
		"stores list": "config.toml only", "stores show": "config.toml only",
		"stores remove":         "config.toml only",
		"stores discover turso": "Turso's platform API and config.toml",
	}
}

// cliCase is one reading surface of the command line.
type cliCase struct {
	cmd  string   // the command's path in the kong tree
	args []string // the command line after the global flags
	// long: runs until interrupted (watch, fleet -w): started once and
	// cancelled at the end; else run again and again.
	long bool
	// scrape: a long command that serves metrics (the exporter): its
	// /metrics is read every 500 ms meanwhile.
	scrape bool
	// codes are the exit codes that mean the run went right (0 when
	// none is given).
	codes []int
	// setup prepares the copy (dir is the surface's own directory).
	setup func(t *testing.T, path, dir string, env map[string]string)
}

// cliMatrix is every reading surface of the command line.
func cliMatrix() []cliCase {
	prefix := `["t2"]`
	return []cliCase{
		{cmd: "get", args: []string{"get", `["bulk", 123n]`}},
		{cmd: "list", args: []string{"list", `["t1"]`}},
		{cmd: "list", args: []string{"list", `["bulk"]`, "--limit", "200"}},
		{cmd: "list", args: []string{"list", prefix, "--contains", `"session":77`}},
		{cmd: "dump", args: []string{"dump"}},
		{cmd: "dump", args: []string{"dump", prefix}},
		{cmd: "stats", args: []string{"stats"}},
		{cmd: "doctor", args: []string{"doctor"}, codes: []int{0, 1}},
		{cmd: "sweep", args: []string{"sweep", "--dry-run"}},
		{cmd: "watch", args: []string{"watch", `["bulk"]`}, long: true},
		{cmd: "diff", args: []string{"diff", "-o", "json"}, codes: []int{0, 1}, setup: otherStore},
		{cmd: "fleet status", args: []string{"fleet"}, setup: saveStore},
		{cmd: "fleet status", args: []string{"fleet", "-w", "1s"}, long: true, setup: saveStore},
		{cmd: "fleet doctor", args: []string{"fleet", "doctor"}, codes: []int{0, 1}, setup: saveStore},
		{cmd: "fleet find", args: []string{"fleet", "find", `["bulk", 77n]`}, setup: saveStore},
		{cmd: "fleet find", args: []string{"fleet", "find", "--prefix", prefix}, setup: saveStore},
		{cmd: "undo", args: []string{"undo", "--list"}, setup: journalEntry},
		{cmd: "copy", args: []string{"copy", prefix}, setup: copyTarget},
		{cmd: "stores add", args: []string{"stores", "add", "svc", "--replace"}},
		{cmd: "lease list", args: []string{"lease", "list"}},
		{cmd: "alarm list", args: []string{"alarm", "list"}},
		{cmd: "alarm get", args: []string{"alarm", "get", "billing", fmt.Sprintf("%032x", 0)}},
		{cmd: "queue list", args: []string{"queue", "list"}},
		{cmd: "index show", args: []string{"index", "show"}},
		{cmd: "record", args: []string{"record"}, long: true},
		{cmd: "exporter", args: []string{"exporter", "--listen", "127.0.0.1:0"}, long: true, scrape: true, setup: saveStore},
		{cmd: "history", args: []string{"history"}, setup: recording},
		{cmd: "history", args: []string{"history", `["bulk", 5n]`}, setup: recording},
	}
}

// saveStore saves the copy as "svc", the default store (kvdeck fleet
// reads every saved store).
func saveStore(t *testing.T, path, dir string, env map[string]string) {
	t.Helper()
	configFile(t, env, fmt.Sprintf("[stores.svc]\nurl = %q\n", "file:"+path), 0o600)
}

// otherStore is diff's other side: the store as it was before the
// writer started.
func otherStore(t *testing.T, path, dir string, env map[string]string) {
	t.Helper()
	copyFileTo(t, path, filepath.Join(dir, "other.db"))
}

// copyTarget is copy's destination: an empty store.
func copyTarget(t *testing.T, path, dir string, env map[string]string) {
	t.Helper()
	if r := runMain(t, env, "", []string{"--db", "file:" + filepath.Join(dir, "target.db"), "init"}); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
}

// journalEntry gives the store's journal an entry (a set by kvdeck).
func journalEntry(t *testing.T, path, dir string, env map[string]string) {
	t.Helper()
	if r := runMain(t, env, "", []string{"--db", "file:" + path, "set", `["kvdeck", "note"]`, `"hello"`}); r.code != 0 {
		t.Fatalf("set: %d %s", r.code, r.stderr)
	}
}

// recording gives the store a history of kvdeck record's (a second of
// it), which history reads.
func recording(t *testing.T, path, dir string, env map[string]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	Main(ctx, []string{"--db", "file:" + path, "record"}, strings.NewReader(""), &out, &errb, env)
}

// copyFileTo copies the file at from to to.
func copyFileTo(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
