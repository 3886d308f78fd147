package tui

import (
	"context"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/views/viewtest"
)

// restartable is a real sqld that a test stops and starts again on the
// same address and database (sqldtest.Start gives a fresh one each time).
type restartable struct {
	t         *testing.T
	bin, path string
	addr      string
	cmd       *exec.Cmd
}

// startRestartable runs sqld on a free address.
func startRestartable(t *testing.T) *restartable {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	r := &restartable{t: t, bin: sqldtest.Binary(t), path: filepath.Join(t.TempDir(), "data.sqld"), addr: addr}
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *restartable) url() string { return "http://" + r.addr }

// start runs the server and waits until it answers /health.
func (r *restartable) start() {
	r.t.Helper()
	r.cmd = exec.Command(r.bin, "--db-path", r.path, "--no-welcome", "--http-listen-addr", r.addr)
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := client.Get(r.url() + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	r.t.Fatal("sqld did not come up again")
}

// stop ends the server (SIGTERM, then waits).
func (r *restartable) stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	_ = r.cmd.Wait()
	r.cmd = nil
}

// TestErrorsClearWhenTheServerComesBack: the server stops, a reload shows
// "database unreachable" in the rows and in the status bar; the server
// comes back with nothing written (seq stands still), and the next tick
// re-reads the tab: the rows come back without r (issue 22 point 9).
func TestErrorsClearWhenTheServerComesBack(t *testing.T) {
	srv := startRestartable(t)
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, srv.url(), clock, false)
	for _, k := range []string{"acme", "globex", "hooli"} {
		if _, err := s.Set(context.Background(), codec.Key{codec.String("accounts"), codec.String(k)}, []byte(`true`), nil); err != nil {
			t.Fatal(err)
		}
	}
	a := start(t, s, clock, 120, 40, 300*time.Millisecond, "remote http")
	a.keys("2") // Leases: its rows are one load, so an error replaces them
	a.waitFor("LEASES", "No leases")
	srv.stop()
	a.keys("r")
	a.waitFor("│ ✗ database unreachable")
	srv.start()
	a.waitFor("No leases") // before the fix: "✗ database unreachable" until r

	m := a.final()
	if m.lastErr != "" {
		t.Errorf("the status bar still says %q", m.lastErr)
	}
}

// TestBrowseErrorsClearWhenTheServerComesBack: the same on Browse, which
// cannot say that its last load failed: the failed version reads while
// the server was away make the root call Browse's Refresh at the first
// read that succeeds. It does (the shell's part), but Browse's Refresh
// re-reads only the stale pages on screen, not a level whose load failed,
// so the row keeps its error: Browse's part of issue 22 point 9.
func TestBrowseErrorsClearWhenTheServerComesBack(t *testing.T) {
	srv := startRestartable(t)
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, srv.url(), clock, false)
	for _, k := range []string{"acme", "globex", "hooli"} {
		if _, err := s.Set(context.Background(), codec.Key{codec.String("accounts"), codec.String(k)}, []byte(`true`), nil); err != nil {
			t.Fatal(err)
		}
	}
	a := start(t, s, clock, 120, 40, 300*time.Millisecond, "remote http")
	a.keys("enter")
	a.waitFor(`"hooli"`)
	srv.stop()
	a.waitFor("│ ✗ database unreachable") // the status bar: the version reads fail
	a.keys("r")
	a.waitFor("│   ✗ database unreachable: cannot reach")
	srv.start()
	// The rows' lines are not drawn again when they come back (the
	// renderer writes changed lines only): the title's row count tells,
	// 1/6 with the two error rows, 1/4 without.
	a.waitFor("KEYS", "1/4")
	m := a.final()
	if m.tabs.browse.Failed() {
		t.Error("Browse still says a load failed")
	}
}
