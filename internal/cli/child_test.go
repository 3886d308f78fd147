package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"

	"kvdeck/internal/cli"
)

// envChildArgs carries the arguments (a JSON array) of the kvdeck process
// TestKvdeckChildProcess becomes.
const envChildArgs = "KVDECK_CHILD_ARGS"

// TestKvdeckChildProcess is not a test: re-executed by kvdeckProcess with
// envChildArgs set, the test binary becomes one kvdeck process, run as
// main runs it (interrupt and SIGTERM cancel its context).
func TestKvdeckChildProcess(t *testing.T) {
	raw := os.Getenv(envChildArgs)
	if raw == "" {
		t.Skip("helper process for kvdeckProcess")
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, args, os.Stdin, os.Stdout, os.Stderr, map[string]string{})
	stop()
	os.Exit(code)
}

// kvdeckProcess is kvdeck with args in a process of its own (the test
// binary re-executed as TestKvdeckChildProcess), not yet started; ctx
// kills it (exec.CommandContext).
func kvdeckProcess(ctx context.Context, args ...string) *exec.Cmd {
	raw, _ := json.Marshal(args) // a []string always marshals
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestKvdeckChildProcess$")
	cmd.Env = append(os.Environ(), envChildArgs+"="+string(raw))
	return cmd
}
