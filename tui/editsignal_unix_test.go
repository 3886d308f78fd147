//go:build unix

package tui

import (
	"context"
	"io"
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
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// editSignalChild is set in the child of TestEditorStoppedOnSignal: the
// store's URL.
const editSignalChild = "KVDECK_TEST_EDIT_SIGNAL_CHILD"

// TestEditSignalChild is the child's side: Run over the store, with the
// context main makes (cancelled by cli.StopSignals), keys from stdin.
func TestEditSignalChild(t *testing.T) {
	url := os.Getenv(editSignalChild)
	if url == "" {
		t.Skip("the child of TestEditorStoppedOnSignal")
	}
	if err := os.WriteFile(os.Getenv(editSignalChild+"_PID"), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), cli.StopSignals()...)
	defer stop()
	clock := store.NewVirtualClock(nil)
	s, err := store.Open(ctx, url, store.Options{Clock: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := Run(ctx, s, Config{Clock: clock, Refresh: time.Hour}); err != nil {
		t.Fatal(err)
	}
}

// tuiChild is a kvdeck TUI (tui.Run, as main runs it) in a child
// process on a terminal of its own, over url.
type tuiChild struct {
	t      *testing.T
	c      *exec.Cmd
	keys   io.Writer
	screen string // the file the terminal's output (stderr too) goes to
	pid    string // the file the child writes its pid to
}

// startTUI starts the child with env added (XDG dirs, the editor) and
// answers the terminal queries Run makes.
func startTUI(t *testing.T, tmp, url string, env ...string) *tuiChild {
	t.Helper()
	// bubbletea wants a terminal: script(1) gives the child one, and
	// forwards the keys written to its stdin.
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("no script(1) to give the TUI a terminal")
	}
	ch := &tuiChild{t: t, screen: filepath.Join(tmp, "screen"), pid: filepath.Join(tmp, "kvdeck.pid")}
	// A size, or the TUI draws nothing on script's terminal.
	ch.c = exec.Command("script", "-q", "-e", "-c", "stty cols 120 rows 40; '"+os.Args[0]+"' -test.run='^TestEditSignalChild$'", "/dev/null")
	// The child runs on script(1)'s terminal, not in CI: termenv takes CI
	// set in the environment for no terminal and then asks nothing (the
	// CI run failed so).
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CI=") {
			base = append(base, kv)
		}
	}
	ch.c.Env = append(append(base, editSignalChild+"="+url, editSignalChild+"_PID="+ch.pid, "TERM=xterm"), env...)
	keys, err := ch.c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	ch.keys = keys
	out, err := os.Create(ch.screen)
	if err != nil {
		t.Fatal(err)
	}
	ch.c.Stdout, ch.c.Stderr = out, out
	if err := ch.c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ch.c.Process.Kill() })
	// Answer the terminal queries Run makes (the background colour, the
	// cursor).
	ch.waitScreen("]11;?", 30*time.Second)
	ch.press("\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[1;1R")
	return ch
}

// press types keys on the child's terminal.
func (ch *tuiChild) press(keys string) {
	if _, err := io.WriteString(ch.keys, keys); err != nil {
		ch.t.Fatal(err)
	}
}

// waitScreen waits until the terminal's output holds text.
func (ch *tuiChild) waitScreen(text string, within time.Duration) {
	ch.t.Helper()
	for deadline := time.Now().Add(within); !strings.Contains(ch.output(), text); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			ch.t.Fatalf("the screen never showed %q:\n%s", text, ch.output())
		}
	}
}

func (ch *tuiChild) output() string {
	b, _ := os.ReadFile(ch.screen)
	return string(b)
}

// signal sends sig to the child kvdeck and waits for it to end: a TUI
// stopped by a signal ends within milliseconds, however it was stuck.
func (ch *tuiChild) signal(sig syscall.Signal) {
	ch.t.Helper()
	b, _ := os.ReadFile(ch.pid)
	kvdeck, _ := strconv.Atoi(string(b))
	if kvdeck == 0 {
		ch.t.Fatal("no pid of kvdeck")
	}
	signalled := time.Now()
	if err := syscall.Kill(kvdeck, sig); err != nil {
		ch.t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- ch.c.Wait() }()
	select {
	case <-waited:
		ch.t.Logf("kvdeck ended %v after the signal", time.Since(signalled).Round(time.Millisecond))
	case <-time.After(15 * time.Second):
		ch.t.Fatalf("kvdeck did not end within 15 s of the signal:\n%s", ch.output())
	}
}

// storeWithA is a file store holding ["a"] = value.
func storeWithA(t *testing.T, tmp, value string) string {
	t.Helper()
	url := "file:" + filepath.Join(tmp, "kv.db")
	s := storetest.Open(t, url, store.Options{})
	if _, err := s.Set(context.Background(), storetest.Key(t, `["a"]`), []byte(value), nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	return url
}

// TestEditorStoppedOnSignal: the TUI (tui.Run, as main runs it) with E's
// editor open is sent SIGTERM or SIGHUP: the editor is stopped and the
// session's directory, with the value file, is gone when kvdeck has ended
// (the file stayed, the editor outlived kvdeck).
func TestEditorStoppedOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			url := storeWithA(t, tmp, `{"secret":1}`)
			base, pidFile := filepath.Join(tmp, "run"), filepath.Join(tmp, "editor.pid")
			if err := os.Mkdir(base, 0o700); err != nil {
				t.Fatal(err)
			}
			editor := filepath.Join(tmp, "my editor")
			if err := os.WriteFile(editor, []byte("#!/bin/sh\necho $$ > '"+pidFile+"'\nexec sleep 60\n"), 0o700); err != nil {
				t.Fatal(err)
			}
			ch := startTUI(t, tmp, url, "XDG_RUNTIME_DIR="+base, "VISUAL=", "EDITOR="+editor)
			// Press E until the editor runs (the entry must be read first);
			// E again only after a second: on a loaded machine a press
			// every 200 ms could start a second edit before the first
			// editor ran.
			pid := 0
			for deadline := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(time.Second) {
				if time.Now().After(deadline) {
					t.Fatalf("the editor did not start; screen:\n%s", ch.output())
				}
				b, _ := os.ReadFile(pidFile)
				if pid, _ = strconv.Atoi(strings.TrimSpace(string(b))); pid == 0 {
					ch.press("E")
				}
			}
			defer syscall.Kill(pid, syscall.SIGKILL)
			dirs, _ := filepath.Glob(filepath.Join(base, "kvdeck-edit-*"))
			files, _ := filepath.Glob(filepath.Join(base, "kvdeck-edit-*", "value-*"))
			if len(dirs) != 1 || len(files) == 0 {
				t.Fatalf("session dirs %v, value files %v; want one dir with the value files", dirs, files)
			}
			ch.signal(sig)
			if _, err := os.Stat(dirs[0]); !os.IsNotExist(err) {
				t.Errorf("the session dir stays after %v: %v", sig, err)
			}
			for deadline := time.Now().Add(5 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the editor (pid %d) outlives kvdeck after %v", pid, sig)
				}
			}
		})
	}
}

// TestSignalKeepsUnsavedEdit: SIGTERM or SIGHUP while an edit is not
// saved ends kvdeck at once, and the last line it prints says where the
// text was kept (a 0600 file under the state directory) and how to write
// it. On SIGTERM, bubbletea's own handler could also take the signal and
// then wait forever to hand its quit to a loop that had ended on main's
// context: the TUI hung (main's 8 s exit saved it, without this line).
func TestSignalKeepsUnsavedEdit(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			state := filepath.Join(tmp, "state")
			ch := startTUI(t, tmp, storeWithA(t, tmp, "1"), "XDG_STATE_HOME="+state)
			// e until the form opens (the entry must be read first).
			for deadline := time.Now().Add(30 * time.Second); !strings.Contains(ch.output(), "saves only if"); time.Sleep(time.Second) {
				if time.Now().After(deadline) {
					t.Fatalf("the form did not open; screen:\n%s", ch.output())
				}
				ch.press("e")
			}
			ch.press("\x05\x15") // ctrl+e, ctrl+u: the value emptied
			ch.waitScreen("invalid JSON", 30*time.Second)
			ch.press(`{"mine":2}`)
			ch.waitScreen(`{"mine":2}`, 30*time.Second)
			ch.signal(sig)
			out := strings.TrimSpace(ch.output())
			last := out[strings.LastIndex(out, "kvdeck: "):]
			if !strings.HasPrefix(last, `kvdeck: your edit of ["a"], not saved; kept in `) {
				t.Fatalf("the last line printed: %q", last)
			}
			files, _ := filepath.Glob(filepath.Join(state, "kvdeck", "unsaved", "*.json"))
			if len(files) != 1 {
				t.Fatalf("kept files: %v", files)
			}
			if b, err := os.ReadFile(files[0]); err != nil || string(b) != `{"mine":2}` {
				t.Errorf("kept %q (%v)", b, err)
			}
		})
	}
}
