package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/internal/testskip"
)

// runAsNobody runs kvdeck with args as a user that is not root: in this
// process when the test is not run as root, else in a copy of the test
// binary (childCommand) run as uid/gid 65534 (root may write anywhere,
// which hides what a user meets). It skips, saying why, when the machine
// cannot do that.
func runAsNobody(t *testing.T, args ...string) result {
	t.Helper()
	if os.Getuid() != 0 {
		return runMain(t, nil, "", args)
	}
	bin := traversableDir(t)
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(bin, "kvdeck.test")
	if err := os.WriteFile(exe, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := childCommand(context.Background(), exe, []string{"HOME=" + bin, "PATH=/usr/bin:/bin"}, args...)
	cmd.Dir = bin
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) {
		testskip.Skip(t, "cannot run a process as uid 65534 here: "+err.Error())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("kvdeck as uid 65534: %v\n%s", err, errb.String())
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
}

// traversableDir is a fresh directory that every user may enter and read
// (t.TempDir and its parent are private to the owner).
func traversableDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestWALInReadOnlyFolder: a WAL store in a folder the user may not write
// into. A read without --read-only fails naming the folder and the
// -wal/-shm SQLite cannot create there, and suggests --read-only (before
// the fix: "the database file refused a write"); with --read-only the
// read works and leaves the folder as it was.
func TestWALInReadOnlyFolder(t *testing.T) {
	dir := traversableDir(t)
	path := filepath.Join(dir, "kv.db")
	c := &cli{t: t, url: "file:" + path, now: storetest.T0}
	c.must("set", `["a"]`, `1`)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	r := runAsNobody(t, "--db", "file:"+path, "get", `["a"]`)
	if r.code != CodeError || strings.Contains(r.stderr, "refused a write") ||
		!strings.Contains(r.stderr, "the folder "+dir+" is not writable") || !strings.Contains(r.stderr, "--read-only") {
		t.Fatalf("get in a read-only folder: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runAsNobody(t, "--db", "file:"+path, "--read-only", "get", `["a"]`)
	if r.code != 0 || !strings.Contains(r.stdout, `["a"]  1`) || r.stderr != "" {
		t.Fatalf("--read-only get in a read-only folder: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := storetest.DirNames(t, dir); !slices.Equal(got, []string{"kv.db"}) {
		t.Fatalf("the folder holds %v after the reads", got)
	}
}
