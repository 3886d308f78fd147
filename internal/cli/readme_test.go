package cli

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
)

// readmeCommands returns the kvdeck commands README.md gives to run
// beside the demo: `kvdeck ...` in backquotes and `$ kvdeck ...` lines
// that name the demo's store, split into arguments as a shell would
// (single quotes only).
func readmeCommands(t *testing.T) [][]string {
	t.Helper()
	src, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	var cmds []string
	for _, m := range regexp.MustCompile("`(kvdeck [^`]*)`").FindAllStringSubmatch(text, -1) {
		cmds = append(cmds, strings.Join(strings.Fields(m[1]), " "))
	}
	for _, m := range regexp.MustCompile(`(?m)^\$ (kvdeck .*)$`).FindAllStringSubmatch(text, -1) {
		cmds = append(cmds, m[1])
	}
	var out [][]string
	for _, c := range cmds {
		if !strings.Contains(c, "kvdeck-demo.db") {
			continue
		}
		var args []string
		for i, part := range strings.Split(c, "'") {
			if i%2 == 1 {
				args = append(args, part)
			} else {
				args = append(args, strings.Fields(part)...)
			}
		}
		out = append(out, args[1:])
	}
	return out
}

// TestReadmeCommandsBesideTheDemo runs the README's quick start as a
// newcomer does: `kvdeck demo` (headless here) in a directory, then each
// command the README gives to look at the demo's store, in that
// directory. Each finds the store (the README sent
// newcomers to kvdeck.db, and its watch example failed there with a hint,
// `kvdeck init`, that would create an empty store). The default database
// missing beside the demo's store now names the demo's store instead.
func TestReadmeCommandsBesideTheDemo(t *testing.T) {
	cmds := readmeCommands(t)
	if len(cmds) < 2 {
		t.Fatalf("README commands on the demo's store: %q; want the TUI and the watch example", cmds)
	}
	t.Chdir(t.TempDir())
	env := map[string]string{"XDG_STATE_HOME": t.TempDir()}
	if r := runMain(t, env, "", []string{"demo", "--headless", "--duration", "1s", "--seed", "1", "--tick", "100ms"}); r.code != 0 {
		t.Fatalf("demo: exit %d, stderr %s", r.code, r.stderr)
	}
	shown := false
	tui := WithTUI(func(context.Context, *store.Store, tuiconfig.Config) error { shown = true; return nil })
	for _, args := range cmds {
		ctx, cancel := context.WithCancel(context.Background())
		var out, errb storetest.Buffer
		done := make(chan int)
		go func() { done <- Main(ctx, args, strings.NewReader(""), &out, &errb, env, tui) }()
		var code int
		select {
		case code = <-done:
		case <-waitFor(&errb, "watching"):
			cancel() // the watch runs until interrupted, as Ctrl-C does
			code = <-done
		}
		cancel()
		if strings.Contains(errb.String(), "no database") || strings.Contains(errb.String(), "not a kvdeck store") ||
			(code != 0 && code != CodeInterrupted) {
			t.Errorf("kvdeck %s beside the demo: exit %d, stderr %q", strings.Join(args, " "), code, errb.String())
		}
	}
	if !shown {
		t.Errorf("no README command opened the TUI on the demo's store")
	}
	r := runMain(t, env, "", []string{"-o", "text", "watch", `["dwk_lease"]`})
	if r.code != CodeError || !strings.Contains(r.stderr, "kvdeck demo keeps its store in kvdeck-demo.db, which is here: add --db file:kvdeck-demo.db") ||
		strings.Contains(r.stderr, "init") {
		t.Errorf("watch without --db beside the demo: exit %d, stderr %q; want 2 and the demo's store named, no init", r.code, r.stderr)
	}
	if _, err := os.Stat("kvdeck.db"); err == nil {
		t.Errorf("kvdeck.db was created")
	}
}

// waitFor closes the returned channel once b holds text; it gives up
// after a minute (the caller's select then waits for the command).
func waitFor(b *storetest.Buffer, text string) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if strings.Contains(b.String(), text) {
				close(ch)
				return
			}
		}
	}()
	return ch
}
