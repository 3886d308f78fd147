package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"kvdeck/internal/storetest"
)

// result is what one in-process run of kvdeck produced.
type result struct {
	code           int
	stdout, stderr string
}

// cli runs kvdeck in-process against one database with a fixed clock.
type cli struct {
	t    *testing.T
	url  string
	now  int64
	env  map[string]string
	opts []Option
}

// run runs kvdeck with --db and --now prepended and no stdin.
func (c *cli) run(args ...string) result { return c.runIn("", args...) }

// runIn runs kvdeck with the given stdin.
func (c *cli) runIn(stdin string, args ...string) result {
	c.t.Helper()
	full := append([]string{"--db", c.url, "--now", strconv.FormatInt(c.now, 10)}, args...)
	return runMain(c.t, c.env, stdin, full, c.opts...)
}

// at returns a copy of c whose clock is fixed at now.
func (c *cli) at(now int64) *cli {
	d := *c
	d.now = now
	return &d
}

// must runs args and fails the test unless the exit code is 0.
func (c *cli) must(args ...string) string {
	c.t.Helper()
	r := c.run(args...)
	if r.code != 0 {
		c.t.Fatalf("kvdeck %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// mustMain runs kvdeck with exactly args in env, no stdin, and fails the
// test unless it exits 0.
func mustMain(t *testing.T, env map[string]string, args ...string) {
	t.Helper()
	if r := runMain(t, env, "", args); r.code != 0 {
		t.Fatalf("kvdeck %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
}

// mustAt is mustMain on the database at url with the clock at now.
func mustAt(t *testing.T, env map[string]string, url string, now int64, args ...string) {
	t.Helper()
	mustMain(t, env, append([]string{"--db", url, "--now", strconv.FormatInt(now, 10)}, args...)...)
}

// runMain calls Main with exactly the given arguments and environment.
func runMain(t *testing.T, env map[string]string, stdin string, args []string, opts ...Option) result {
	t.Helper()
	env = maps.Clone(env)
	if env == nil {
		env = map[string]string{}
	}
	if env["XDG_STATE_HOME"] == "" && env["HOME"] == "" {
		// Writes are journaled: into the test's own state directory,
		// never the user's.
		env["XDG_STATE_HOME"] = t.TempDir()
	}
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, strings.NewReader(stdin), &out, &errb, env, opts...)
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// eachBackend runs fn on a fresh database of every backend (an embedded
// file, a real sqld over HTTP and over WebSocket), with a cli on it at
// storetest.T0; b gives fn more fresh databases of the same kind.
func eachBackend(t *testing.T, fn func(t *testing.T, c *cli, b storetest.Backend)) {
	t.Helper()
	backends := []storetest.Backend{storetest.File(), storetest.SQLD(), storetest.SQLDWS().Named("sqld-ws")}
	storetest.Each(t, backends, func(t *testing.T, b storetest.Backend) {
		c := &cli{t: t, url: b.URL(t), now: storetest.T0}
		c.must("init")
		fn(t, c, b)
	})
}

// writeFile writes content into a new file under the test's temp dir.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// lines splits output into its lines, without the final newline.
func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// jsonLines parses output of JSON lines, a T a line.
func jsonLines[T any](t *testing.T, out string) []T {
	t.Helper()
	var rows []T
	for _, l := range lines(out) {
		var r T
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		rows = append(rows, r)
	}
	return rows
}

// fileSum is the SHA-256 of a file's bytes, "" when it does not exist.
func fileSum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// envChildArgs carries the arguments (a JSON array) of the kvdeck process
// TestKvdeckChildProcess becomes.
const envChildArgs = "KVDECK_CHILD_ARGS"

// TestKvdeckChildProcess is not a test: re-executed by childCommand with
// envChildArgs set, the test binary becomes one kvdeck process, run as
// main runs it (interrupt and SIGTERM cancel its context).
func TestKvdeckChildProcess(t *testing.T) {
	raw := os.Getenv(envChildArgs)
	if raw == "" {
		t.Skip("helper process for childCommand")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	// The journal goes where the parent says (XDG_STATE_HOME), else into
	// a directory of the child's own, never the user's.
	env := map[string]string{"XDG_STATE_HOME": os.Getenv("XDG_STATE_HOME"), "KVDECK_JOURNAL": os.Getenv("KVDECK_JOURNAL")}
	own := ""
	if env["XDG_STATE_HOME"] == "" {
		var err error
		if own, err = os.MkdirTemp("", "kvdeck-state-"); err != nil {
			t.Fatal(err)
		}
		env["XDG_STATE_HOME"] = own
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, args, os.Stdin, os.Stdout, os.Stderr, env, childOptions()...)
	stop()
	if own != "" {
		os.RemoveAll(own) // os.Exit skips deferred calls
	}
	os.Exit(code)
}

// childCommand is kvdeck with args in a process of its own, not yet
// started: the test binary at exe re-executed as TestKvdeckChildProcess
// in the environment env; ctx kills it (exec.CommandContext).
func childCommand(ctx context.Context, exe string, env []string, args ...string) *exec.Cmd {
	raw, _ := json.Marshal(args) // a []string always marshals
	cmd := exec.CommandContext(ctx, exe, "-test.run=^TestKvdeckChildProcess$")
	cmd.Env = append(env, envChildArgs+"="+string(raw))
	return cmd
}

// KvdeckProcess is childCommand of this test binary in this process's
// environment. It is exported for the tests of package cli_test (the race
// and watch processes); it exists only in the test build.
func KvdeckProcess(ctx context.Context, args ...string) *exec.Cmd {
	return childCommand(ctx, os.Args[0], os.Environ(), args...)
}
