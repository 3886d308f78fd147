package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/cli"
	"kvdeck/internal/demo"
	"kvdeck/internal/storetest"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
)

// demoRun runs kvdeck in-process with ctx, env and options.
func demoRun(ctx context.Context, env map[string]string, args []string, opts ...cli.Option) (code int, stdout, stderr string) {
	env = maps.Clone(env)
	if env == nil {
		env = map[string]string{}
	}
	if env["XDG_STATE_HOME"] == "" && env["HOME"] == "" {
		// The journal of the writes goes to a directory of the run's own.
		state, err := os.MkdirTemp("", "kvdeck-state-")
		if err != nil {
			return cli.CodeError, "", err.Error()
		}
		defer os.RemoveAll(state)
		env["XDG_STATE_HOME"] = state
	}
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

// demoMoves are the counters TestDemoHeadless waits for.
var demoMoves = []string{"leasesAcquired", "leasesReleased", "alarmsFired", "alarmsRetried", "messagesDelivered", "messagesRedelivered"}

// stopWhenMoved is a demo progress hook that cancels the run once every
// counter of demoMoves is above zero: the test waits for the activity,
// not for a time (a 5 s run saw no poll at all on a loaded 2-CPU machine).
func stopWhenMoved(cancel context.CancelFunc) cli.Option {
	return cli.WithDemoProgress(func(s demo.Summary) {
		if s.LeasesAcquired > 0 && s.LeasesReleased > 0 && s.AlarmsFired > 0 && s.AlarmsRetried > 0 &&
			s.MessagesDelivered > 0 && s.MessagesRedelivered > 0 {
			cancel()
		}
	})
}

// `kvdeck demo --headless --seed 1` shows leases taken and released, alarms
// fired and retried, messages delivered and redelivered, and no store
// error; Ctrl-C (here: the progress hook, once all of that happened) ends
// a run without --duration normally. A second run reuses the store.
func TestDemoHeadless(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		ctx, cancel := context.WithCancel(storetest.CtxTimeout(t, 3*time.Minute))
		defer cancel()
		code, stdout, stderr := demoRun(ctx, nil, []string{"--db", url, "-o", "json", "demo", "--headless", "--seed", "1"}, stopWhenMoved(cancel))
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
		for _, name := range demoMoves {
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
		storetest.NoGoroutinesOf(t, "kvdeck/internal/demo", "kvdeck")
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
		{[]string{"demo", "--headless", "--seed", "3", "--tick", "100ms", "--duration", "1h"}, cli.CodeInterrupted},
	} {
		// Ctrl-C once the replicas have polled a few times (a cancel at a
		// fixed 800 ms could come before the first poll on a slow machine).
		ctx, cancel := context.WithCancel(storetest.Ctx(t))
		polled := cli.WithDemoProgress(func(s demo.Summary) {
			if s.Polls >= 3 {
				cancel()
			}
		})
		code, stdout, stderr := demoRun(ctx, env, tc.args, polled)
		cancel()
		if code != tc.code || !strings.HasPrefix(stdout, "demo on file:kvdeck-demo.db: 3 replicas") {
			t.Fatalf("%v: exit %d\nstdout: %s\nstderr: %s", tc.args, code, stdout, stderr)
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
	storetest.NoGoroutinesOf(t, "kvdeck/internal/demo", "kvdeck")
}

// With a TUI the simulation runs while it shows the store (the store
// moves), and quitting it stops the simulation before kvdeck returns.
func TestDemoTUI(t *testing.T) {
	url := "file:" + filepath.Join(t.TempDir(), "demo.db")
	moved := false
	fake := func(ctx context.Context, s *store.Store, cfg tuiconfig.Config) error {
		v0, err := s.Version(ctx)
		if err != nil {
			return err
		}
		// Wait for the move, bounded only by the test's context (a fixed
		// 5 s was too short on a loaded machine).
		for !moved && ctx.Err() == nil {
			time.Sleep(50 * time.Millisecond)
			v, err := s.Version(ctx)
			if err != nil {
				return err
			}
			moved = v.Seq > v0.Seq
		}
		return nil // the user pressed q
	}
	code, stdout, stderr := demoRun(storetest.CtxTimeout(t, 3*time.Minute), nil, []string{"--db", url, "demo", "--tick", "100ms", "--seed", "9"}, cli.WithTUI(fake))
	if code != 0 || !moved || !strings.HasPrefix(stdout, "demo on "+url) {
		t.Fatalf("exit %d, store moved %v\nstdout: %s\nstderr: %s", code, moved, stdout, stderr)
	}
	storetest.NoGoroutinesOf(t, "kvdeck/internal/demo", "kvdeck")
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
