// Package editsession keeps what Browse's E hands to an external editor:
// a private directory per TUI session (0700, the value files 0600 inside)
// and the editor processes running on them, so that both go when the
// session ends or kvdeck is told to stop. It knows
// nothing of terminals; a *Session is made by tui.Run and handed down, no
// package state.
package editsession

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// dirPrefix starts the name of every session directory:
// kvdeck-edit-<pid>-<random>.
const dirPrefix = "kvdeck-edit-"

// ErrClosed: the session has ended; no file is made, no editor started.
var ErrClosed = errors.New("the edit session has ended")

// Session is one TUI session's editing place. The zero of a nil *Session
// is valid: files go to os.TempDir and editors are not tracked (tests).
type Session struct {
	dir    string
	mu     sync.Mutex
	closed bool
	procs  map[*os.Process]struct{}
}

// Base is where session directories are made: $XDG_RUNTIME_DIR when set
// (private to the user, emptied at logout), else os.TempDir().
func Base() string { return BaseOf(os.Getenv("XDG_RUNTIME_DIR")) }

// BaseOf is Base with runtimeDir for $XDG_RUNTIME_DIR (an environment
// other than the process's: internal/cli's Main is given one).
func BaseOf(runtimeDir string) string {
	if runtimeDir != "" {
		if st, err := os.Stat(runtimeDir); err == nil && st.IsDir() {
			return runtimeDir
		}
	}
	return os.TempDir()
}

// Open makes the session's directory under base (0700), after removing
// the directories left by sessions whose process is gone (killed with
// SIGKILL, which no code can catch).
func Open(base string) (*Session, error) { return open(base, dirPrefix) }

// OpenFor is Open for another private use of files that must not
// outlive kvdeck: its directories are named kvdeck-KIND-<pid>-<random>
// (internal/history restores a store's past under kind "at").
func OpenFor(base, kind string) (*Session, error) { return open(base, "kvdeck-"+kind+"-") }

func open(base, prefix string) (*Session, error) {
	removeStale(base, prefix)
	dir, err := os.MkdirTemp(base, prefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.Remove(dir)
		return nil, err
	}
	return &Session{dir: dir, procs: map[*os.Process]struct{}{}}, nil
}

// RemoveStale removes the session directories under base whose pid names
// no running process, and returns how many it removed. A directory of a
// live kvdeck (or of a pid reused since) is left alone, and so is one an
// editor still runs on (its editorMark names a live process): a kvdeck
// killed with SIGKILL leaves its editor running, and the user may still
// save into the directory; it goes at the first cleanup after the editor
// ended. Every kvdeck command runs it (internal/cli's Main), not only the
// TUI.
func RemoveStale(base string) int { return removeStale(base, dirPrefix) }

func removeStale(base, prefix string) int {
	ents, err := os.ReadDir(base)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() || alive(pid) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		if editing(dir) {
			continue
		}
		if os.RemoveAll(dir) == nil {
			n++
		}
	}
	return n
}

// editorMark starts the name of the empty file that says an editor runs
// on a session directory: editor-<pid>, made when the editor starts and
// removed when it ends.
const editorMark = "editor-"

// editing reports whether an editor of dir's session may still run: a
// mark names a live process.
func editing(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if rest, ok := strings.CutPrefix(e.Name(), editorMark); ok {
			if pid, err := strconv.Atoi(rest); err == nil && pid > 0 && alive(pid) {
				return true
			}
		}
	}
	return false
}

// Dir is the session's directory ("" for a nil session).
func (s *Session) Dir() string {
	if s == nil {
		return ""
	}
	return s.dir
}

// CreateTemp makes a value file (0600) in the session's directory.
func (s *Session) CreateTemp(pattern string) (*os.File, error) {
	if s == nil {
		return os.CreateTemp("", pattern)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	return os.CreateTemp(s.dir, pattern)
}

// Command wraps an editor's command so that the session tracks its
// process while it runs; it satisfies bubbletea's ExecCommand.
func (s *Session) Command(c *exec.Cmd) *Cmd { return &Cmd{Cmd: c, s: s} }

// Cmd is an editor run under a session.
type Cmd struct {
	*exec.Cmd
	s *Session
}

// SetStdin, SetStdout and SetStderr let bubbletea hand the terminal over.
func (c *Cmd) SetStdin(r io.Reader)  { c.Stdin = r }
func (c *Cmd) SetStdout(w io.Writer) { c.Stdout = w }
func (c *Cmd) SetStderr(w io.Writer) { c.Stderr = w }

// Run starts the editor, unless the session has ended, and waits for it.
func (c *Cmd) Run() error {
	s := c.s
	if s == nil {
		return c.Cmd.Run()
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	err := c.Start()
	mark := ""
	if err == nil {
		s.procs[c.Process] = struct{}{}
		mark = filepath.Join(s.dir, editorMark+strconv.Itoa(c.Process.Pid))
		if f, ferr := os.OpenFile(mark, os.O_CREATE|os.O_WRONLY, 0o600); ferr == nil {
			f.Close()
		}
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	err = c.Wait()
	s.mu.Lock()
	delete(s.procs, c.Process)
	os.Remove(mark)
	s.mu.Unlock()
	return err
}

// stopGrace is how long an editor has to end after SIGTERM before SIGKILL.
const stopGrace = 2 * time.Second

// Close ends the session: every editor still running gets SIGTERM (and
// SIGKILL after stopGrace), and the directory goes with every value file
// in it. It is safe to call more than once and from any goroutine.
func (s *Session) Close() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	s.closed = true
	procs := make([]*os.Process, 0, len(s.procs))
	for p := range s.procs {
		procs = append(procs, p)
	}
	s.mu.Unlock()
	for _, p := range procs {
		p.Signal(syscall.SIGTERM)
	}
	err := os.RemoveAll(s.dir)
	if len(procs) > 0 {
		deadline := time.Now().Add(stopGrace)
		for time.Now().Before(deadline) && s.running() > 0 {
			time.Sleep(20 * time.Millisecond)
		}
		s.mu.Lock()
		for p := range s.procs {
			p.Kill()
		}
		s.mu.Unlock()
	}
	if err != nil {
		return fmt.Errorf("removing the edit directory %s: %w", s.dir, err)
	}
	return nil
}

func (s *Session) running() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.procs)
}

// CloseOn closes the session as soon as ctx is done (the context main
// cancels on SIGINT, SIGTERM and SIGHUP), so that an editor in the
// foreground is stopped and the files go even while the TUI is suspended
// under it. The returned function stops the watch.
func (s *Session) CloseOn(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			s.Close()
		case <-done:
		}
	}()
	return func() { close(done) }
}
