//go:build unix

package tui

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

// TestEditorStoppedOnSignal: the TUI (tui.Run, as main runs it) with E's
// editor open is sent SIGTERM or SIGHUP: the editor is stopped and the
// session's directory, with the value file, is gone when kvdeck has ended
// (issue 25 point 5: the file stayed, the editor outlived kvdeck).
func TestEditorStoppedOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			url := "file:" + filepath.Join(tmp, "kv.db")
			s := storetest.Open(t, url, store.Options{})
			if _, err := s.Set(context.Background(), storetest.Key(t, `["a"]`), []byte(`{"secret":1}`), nil); err != nil {
				t.Fatal(err)
			}
			s.Close()
			base, pidFile := filepath.Join(tmp, "run"), filepath.Join(tmp, "editor.pid")
			if err := os.Mkdir(base, 0o700); err != nil {
				t.Fatal(err)
			}
			editor := filepath.Join(tmp, "my editor")
			if err := os.WriteFile(editor, []byte("#!/bin/sh\necho $$ > '"+pidFile+"'\nexec sleep 60\n"), 0o700); err != nil {
				t.Fatal(err)
			}
			// bubbletea wants a terminal: script(1) gives the child one,
			// and forwards the keys written to its stdin.
			if _, err := exec.LookPath("script"); err != nil {
				t.Skip("no script(1) to give the TUI a terminal")
			}
			kvdeckPid := filepath.Join(tmp, "kvdeck.pid")
			c := exec.Command("script", "-q", "-e", "-c", "'"+os.Args[0]+"' -test.run='^TestEditSignalChild$'", "/dev/null")
			// The child runs on script(1)'s terminal, not in CI: termenv
			// takes CI set in the environment for no terminal and then
			// asks nothing (the CI run failed so).
			var env []string
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "CI=") {
					env = append(env, kv)
				}
			}
			c.Env = append(env, editSignalChild+"="+url, editSignalChild+"_PID="+kvdeckPid, "XDG_RUNTIME_DIR="+base, "VISUAL=", "EDITOR="+editor, "TERM=xterm")
			keys, err := c.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, _ := os.Create(filepath.Join(tmp, "screen"))
			c.Stdout, c.Stderr = out, out
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			defer c.Process.Kill()
			// Answer the terminal queries Run makes (the background colour,
			// the cursor), then press E until the editor runs (the entry
			// must be read first).
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				if b, _ := os.ReadFile(out.Name()); strings.Contains(string(b), "]11;?") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("Run did not ask the terminal its background")
				}
			}
			keys.Write([]byte("\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[1;1R"))
			pid := 0
			// E again only after a second: on a loaded machine a press every
			// 200 ms could start a second edit before the first editor ran.
			for deadline := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(time.Second) {
				if time.Now().After(deadline) {
					b, _ := os.ReadFile(out.Name())
					t.Fatalf("the editor did not start; screen:\n%s", b)
				}
				b, _ := os.ReadFile(pidFile)
				if pid, _ = strconv.Atoi(strings.TrimSpace(string(b))); pid == 0 {
					keys.Write([]byte("E"))
				}
			}
			defer syscall.Kill(pid, syscall.SIGKILL)
			dirs, _ := filepath.Glob(filepath.Join(base, "kvdeck-edit-*"))
			files, _ := filepath.Glob(filepath.Join(base, "kvdeck-edit-*", "value-*"))
			if len(dirs) != 1 || len(files) == 0 {
				t.Fatalf("session dirs %v, value files %v; want one dir with the value files", dirs, files)
			}
			b, _ := os.ReadFile(kvdeckPid)
			kvdeck, _ := strconv.Atoi(string(b))
			if kvdeck == 0 {
				t.Fatal("no pid of kvdeck")
			}
			if err := syscall.Kill(kvdeck, sig); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- c.Wait() }()
			select {
			case <-waited:
			case <-time.After(15 * time.Second):
				t.Fatal("kvdeck did not end within 15 s of the signal")
			}
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
