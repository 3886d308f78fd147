package cli_test

import (
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// restartableSQLD is a real sqld on a fixed address and data directory,
// so that it can be stopped and started again where a client left it.
type restartableSQLD struct {
	t         *testing.T
	bin, dir  string
	addr, url string
	cmd       *exec.Cmd
}

func newRestartableSQLD(t *testing.T) *restartableSQLD {
	t.Helper()
	bin := sqldtest.Binary(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	r := &restartableSQLD{t: t, bin: bin, dir: t.TempDir(), addr: addr, url: "http://" + addr}
	r.start()
	t.Cleanup(r.stop)
	return r
}

func (r *restartableSQLD) start() {
	r.t.Helper()
	r.cmd = exec.Command(r.bin, "--db-path", filepath.Join(r.dir, "data.sqld"), "--no-welcome", "--http-listen-addr", r.addr)
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if resp, err := client.Get(r.url + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	r.t.Fatal("sqld did not become healthy")
}

func (r *restartableSQLD) stop() {
	if r.cmd == nil || r.cmd.Process == nil || r.cmd.ProcessState != nil {
		return
	}
	r.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		r.cmd.Process.Kill()
		<-done
	}
}

// TestWatchSurvivesServerRestart (issue 20 point 7): a watch over sqld
// whose server stops and starts again says so on stderr, retries with
// backoff instead of exiting, and then prints the set and the delete made
// after the restart. Before, it exited at the first failed poll.
func TestWatchSurvivesServerRestart(t *testing.T) {
	srv := newRestartableSQLD(t)
	s := storetest.Open(t, srv.url, store.Options{})
	ctx := storetest.Ctx(t)
	if _, err := s.Set(ctx, storetest.Key(t, `["w", "a"]`), []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, "--db", srv.url, "watch", `["w"]`, "--interval", "50ms")
	srv.stop()
	waitErr := func(want string) {
		t.Helper()
		for {
			select {
			case line, ok := <-w.errs:
				if !ok {
					t.Fatalf("the watch ended (stderr closed) before saying %q", want)
				}
				if strings.Contains(line, want) {
					return
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("the watch did not say %q", want)
			}
		}
	}
	waitErr("the store did not answer")
	srv.start()
	s2 := storetest.Open(t, srv.url, store.Options{})
	if _, err := s2.Set(ctx, storetest.Key(t, `["w", "b"]`), []byte(`2`), nil); err != nil {
		t.Fatal(err)
	}
	if err := s2.Delete(ctx, storetest.Key(t, `["w", "a"]`)); err != nil {
		t.Fatal(err)
	}
	waitErr("answers again")
	// Deletions come before sets within a poll, and the delete may be
	// noticed a poll after the set: either order.
	for range 2 {
		l := w.next()
		if l.Change == "delete" {
			l.is(t, "delete", `["w", "a"]`, "1", "")
		} else {
			l.is(t, "set", `["w", "b"]`, "", "2")
		}
	}
	if code := w.interrupt(); code != 130 {
		t.Errorf("exit %d on interrupt", code)
	}
}
