package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/cli"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// demoRun runs kvdeck in-process with ctx, env and options.
func demoRun(ctx context.Context, env map[string]string, args []string, opts ...cli.Option) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = cli.Main(ctx, args, strings.NewReader(""), &out, &errb, env, opts...)
	return code, out.String(), errb.String()
}

// demoOut is the JSON line of kvdeck demo.
type demoOut struct {
	DB     string `json:"db"`
	Seeded struct {
		Reused bool `json:"reused"`
		Rows   int  `json:"rows"`
	} `json:"seeded"`
}

// noDemoGoroutines fails when a goroutine still runs code of package demo.
func noDemoGoroutines(t *testing.T) {
	t.Helper()
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "kvdeck/internal/demo.") {
			t.Fatalf("a goroutine still runs demo code after kvdeck returned:\n%s", g)
		}
	}
}

// The test: `kvdeck demo --headless --duration 5s --seed 1` ends
// with leases taken and released, alarms fired and retried, messages
// delivered and redelivered, and no store error. A second run reuses the
// store.
func TestDemoHeadless(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		code, stdout, stderr := demoRun(context.Background(), nil, []string{"--db", url, "-o", "json", "demo", "--headless", "--duration", "5s", "--seed", "1"})
		if code != 0 {
			t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		var head demoOut
		var counts map[string]any
		if strings.Count(stdout, "\n") != 1 || json.Unmarshal([]byte(stdout), &head) != nil || json.Unmarshal([]byte(stdout), &counts) != nil {
			t.Fatalf("output is not one JSON line: %q", stdout)
		}
		t.Log(stdout)
		if head.DB != url || head.Seeded.Reused || head.Seeded.Rows == 0 {
			t.Errorf("db %q seeded %+v", head.DB, head.Seeded)
		}
		for _, name := range []string{"leasesAcquired", "leasesReleased", "alarmsFired", "alarmsRetried", "messagesDelivered", "messagesRedelivered"} {
			if n, _ := counts[name].(float64); n <= 0 {
				t.Errorf("%s = %v, want > 0", name, counts[name])
			}
		}
		if counts["errors"] != 0.0 || counts["seed"] != 1.0 || counts["replicas"] != 3.0 {
			t.Errorf("errors %v, seed %v, replicas %v", counts["errors"], counts["seed"], counts["replicas"])
		}
		if !strings.Contains(stderr, "seeded ") || strings.Contains(stderr, "kvdeck-demo.db") {
			t.Errorf("stderr: %s", stderr)
		}
		noDemoGoroutines(t)
	})
	t.Run("reuse", func(t *testing.T) {
		url := "file:" + filepath.Join(t.TempDir(), "demo.db")
		for i, want := range []string{"(seeded ", "(reused, seeded "} {
			code, stdout, stderr := demoRun(context.Background(), nil, []string{"--db", url, "demo", "--headless", "--duration", "300ms", "--tick", "100ms", "--seed", "5"})
			if code != 0 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "leases    acquired") {
				t.Fatalf("run %d: exit %d\nstdout: %s\nstderr: %s", i+1, code, stdout, stderr)
			}
		}
	})
}

// Without --db the demo uses kvdeck-demo.db in the current directory, not
// a database named by the environment; Ctrl-C stops a run without a
// duration cleanly (exit 0) and one with a duration as interrupted (130),
// both after printing the summary.
func TestDemoDefaultDBAndInterrupt(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	elsewhere := filepath.Join(t.TempDir(), "real.db")
	env := map[string]string{"KVDECK_DB": "file:" + elsewhere}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"demo", "--headless", "--seed", "3", "--tick", "100ms"}, 0},
		{[]string{"demo", "--headless", "--seed", "3", "--tick", "100ms", "--duration", "1m"}, cli.CodeInterrupted},
	} {
		ctx, cancel := context.WithCancel(context.Background()) // Ctrl-C after 800ms
		time.AfterFunc(800*time.Millisecond, cancel)
		start := time.Now()
		code, stdout, stderr := demoRun(ctx, env, tc.args)
		cancel()
		if code != tc.code || !strings.HasPrefix(stdout, "demo on file:kvdeck-demo.db: 3 replicas") || time.Since(start) > 5*time.Second {
			t.Fatalf("%v: exit %d after %s\nstdout: %s\nstderr: %s", tc.args, code, time.Since(start), stdout, stderr)
		}
		if !strings.Contains(stderr, "demo store file:kvdeck-demo.db in the current directory") {
			t.Errorf("stderr does not name the default store: %s", stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "kvdeck-demo.db")); err != nil {
		t.Errorf("no kvdeck-demo.db in the current directory: %v", err)
	}
	if _, err := os.Stat(elsewhere); !os.IsNotExist(err) {
		t.Errorf("the demo touched $KVDECK_DB: %v", err)
	}
	noDemoGoroutines(t)
}

// With a TUI the simulation runs while it shows the store (the store
// moves), and quitting it stops the simulation before kvdeck returns.
func TestDemoTUI(t *testing.T) {
	url := "file:" + filepath.Join(t.TempDir(), "demo.db")
	moved := false
	fake := func(ctx context.Context, s *store.Store, cfg cli.TUIConfig) error {
		v0, err := s.Version(ctx)
		if err != nil {
			return err
		}
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !moved; time.Sleep(50 * time.Millisecond) {
			v, err := s.Version(ctx)
			if err != nil {
				return err
			}
			moved = v.Seq > v0.Seq
		}
		return nil // the user pressed q
	}
	code, stdout, stderr := demoRun(context.Background(), nil, []string{"--db", url, "demo", "--tick", "100ms", "--seed", "9"}, cli.WithTUI(fake))
	if code != 0 || !moved || !strings.HasPrefix(stdout, "demo on "+url) {
		t.Fatalf("exit %d, store moved %v\nstdout: %s\nstderr: %s", code, moved, stdout, stderr)
	}
	noDemoGoroutines(t)
}

func TestDemoRefuses(t *testing.T) {
	url := "file:" + filepath.Join(t.TempDir(), "real.db")
	if code, _, stderr := demoRun(context.Background(), nil, []string{"--db", url, "set", `["users","zoe"]`, "{}"}); code != 0 {
		t.Fatalf("set: %d %s", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--db", url, "demo", "--headless", "--duration", "1s"}, "not a demo store"},
		{[]string{"--db", url, "--read-only", "demo", "--headless"}, "read-only"},
		{[]string{"--db", url, "demo", "--replicas", "0"}, "--replicas 0"},
		{[]string{"--db", url, "demo", "--tick", "0s"}, "--tick 0s"},
		{[]string{"--db", url, "demo", "--duration=-1s"}, "--duration -1s"},
	} {
		code, stdout, stderr := demoRun(context.Background(), nil, tc.args)
		if code != cli.CodeError || stdout != "" || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", tc.args, code, stdout, stderr)
		}
	}
}
