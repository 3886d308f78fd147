package editsession_test

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kvdeck/internal/cli"
	"kvdeck/internal/editsession"
)

// TestSessionDirIsPrivateAndGoes: the session's directory is 0700, its
// value files 0600, and Close removes both.
func TestSessionDirIsPrivateAndGoes(t *testing.T) {
	base := t.TempDir()
	s, err := editsession.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(s.Dir())
	if err != nil || st.Mode().Perm() != 0o700 || filepath.Dir(s.Dir()) != base {
		t.Fatalf("session dir %s: %v %v", s.Dir(), st.Mode(), err)
	}
	f, err := s.CreateTemp("value-*.json")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if st, _ := os.Stat(f.Name()); st.Mode().Perm() != 0o600 || filepath.Dir(f.Name()) != s.Dir() {
		t.Fatalf("value file %s: %v", f.Name(), st.Mode())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir()); !os.IsNotExist(err) {
		t.Fatalf("the session dir stays after Close: %v", err)
	}
	if _, err := s.CreateTemp("value-*.json"); err == nil {
		t.Fatal("a closed session made a file")
	}
}

// TestOpenRemovesStaleDirs: a directory left by a kvdeck killed with
// SIGKILL (its pid is gone) is removed by the next Open; one of a live
// process stays.
func TestOpenRemovesStaleDirs(t *testing.T) {
	base := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(base, "kvdeck-edit-"+strconv.Itoa(dead.Process.Pid)+"-123")
	live := filepath.Join(base, "kvdeck-edit-"+strconv.Itoa(os.Getppid())+"-456")
	other := filepath.Join(base, "kvdeck-edit-notapid")
	for _, d := range []string{stale, live, other} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "value-1.json"), []byte(`{"secret":1}`), 0o600)
	}
	s, err := editsession.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the dead session's dir stays: %v", err)
	}
	for _, d := range []string{live, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
}

// childEnv makes the test binary act as a kvdeck TUI session with an
// editor open (see TestMain): base, the pid file and the ready file.
const childEnv = "KVDECK_EDITSESSION_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(child(strings.Split(spec, "\n")))
	}
	os.Exit(m.Run())
}

// child does what main and tui.Run do around an editor: the context is
// cancelled by cli.StopSignals, the session is closed when it is and on
// the way out, and the editor runs through the shell as E runs $EDITOR.
func child(args []string) int {
	base, editor, ready := args[0], args[1], args[2]
	ctx, stop := signal.NotifyContext(context.Background(), cli.StopSignals()...)
	defer stop()
	s, err := editsession.Open(base)
	if err != nil {
		return 2
	}
	defer s.Close()
	defer s.CloseOn(ctx)()
	f, err := s.CreateTemp("value-*.json")
	if err != nil {
		return 2
	}
	f.WriteString(`{"secret": 1}`)
	f.Close()
	cmd := s.Command(editsession.EditorCommand(editor, f.Name()))
	exited := make(chan error, 1)
	go func() { exited <- cmd.Run() }()
	os.WriteFile(ready, []byte(s.Dir()), 0o600)
	select {
	case <-ctx.Done(): // the TUI's program ends on the cancelled context
		<-exited // and bubbletea's exec returns once the editor is gone
		return 130
	case <-exited:
		return 3
	}
}

// editingChild starts a kvdeck session (the test binary as child) with a
// fake editor open on a value, and returns it, its base, its directory
// and the editor's pid, both killed when the test ends.
func editingChild(t *testing.T) (c *exec.Cmd, base, dir string, pid int) {
	t.Helper()
	tmp := t.TempDir()
	base, pidFile, ready := filepath.Join(tmp, "base"), filepath.Join(tmp, "editor.pid"), filepath.Join(tmp, "ready")
	os.Mkdir(base, 0o700)
	editor := filepath.Join(tmp, "fake editor")
	script := "#!/bin/sh\necho $$ > '" + pidFile + "'\nexec sleep 60\n"
	if err := os.WriteFile(editor, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	c = exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), childEnv+"="+base+"\n'"+editor+"'\n"+ready)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill() })
	for deadline := time.Now().Add(10 * time.Second); pid == 0 || dir == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the child did not start its editor")
		}
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		d, _ := os.ReadFile(ready)
		dir = string(d)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return c, base, dir, pid
}

// TestSignalStopsEditorAndRemovesDir: SIGTERM, SIGHUP or SIGINT to a
// kvdeck session with an editor open stops the editor and removes the
// session's directory with the value file (the file
// stayed and the editor outlived kvdeck).
func TestSignalStopsEditorAndRemovesDir(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			c, _, dir, pid := editingChild(t)
			if err := c.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- c.Wait() }()
			select {
			case <-waited:
			case <-time.After(10 * time.Second):
				t.Fatal("kvdeck did not end within 10 s of the signal")
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the session dir %s stays after %v: %v", dir, sig, err)
			}
			for deadline := time.Now().Add(5 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the editor (pid %d) outlives kvdeck after %v", pid, sig)
				}
			}
		})
	}
}

// TestStaleDirWaitsForItsEditor: a kvdeck killed with SIGKILL while an
// editor has a value open leaves its directory; the next cleanup keeps it
// while the editor runs (the user may still save into it) and removes it
// once the editor is gone. Before, the first cleanup removed it under the
// running editor.
func TestStaleDirWaitsForItsEditor(t *testing.T) {
	c, base, dir, pid := editingChild(t)
	c.Process.Kill() // SIGKILL: no code of kvdeck runs
	c.Wait()
	if n := editsession.RemoveStale(base); n != 0 {
		t.Errorf("removed %d directories while their editor runs", n)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the directory of a running editor was removed: %v", err)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	for deadline := time.Now().Add(5 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the editor did not end")
		}
	}
	if n := editsession.RemoveStale(base); n != 1 {
		t.Errorf("removed %d directories once the editor was gone; want 1", n)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the directory stays after its editor ended: %v", err)
	}
}

// TestScript is the one rule for running shell text (an editor, a
// pager): the shell becomes the command when the text is one simple
// command, which needs a command word first. VAR= (a name as POSIX spells
// one) is an assignment, so no exec; A-B=x is no name, so a command the
// shell execs. Before, the pager took A-B=x for an assignment and the
// editor did not.
func TestScript(t *testing.T) {
	for text, want := range map[string]string{
		`less -R`:                `exec less -R`,
		`code --wait "$@"`:       `exec code --wait "$@"`,
		`'/opt/My Ed/ed' "$@"`:   `exec '/opt/My Ed/ed' "$@"`,
		`LESS=R less`:            `LESS=R less`,
		`_x1=2 less`:             `_x1=2 less`,
		`A-B=x`:                  `exec A-B=x`,
		`1A=x less`:              `exec 1A=x less`,
		`less; echo done`:        `less; echo done`,
		`cat | less`:             `cat | less`,
		`(less)`:                 `(less)`,
		"less\necho":             "less\necho",
		`less && echo`:           `less && echo`,
		`"A=b" less`:             `exec "A=b" less`,
		`vi -c 'set tw=72' "$@"`: `exec vi -c 'set tw=72' "$@"`,
	} {
		if got := editsession.Script(text); got != want {
			t.Errorf("Script(%q) = %q, want %q", text, got, want)
		}
	}
}
