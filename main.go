// Command kvdeck is a terminal explorer and scriptable CLI for a
// Deno-KV-like coordination store kept in libSQL.
//
// This file is wiring only: the kong command tree, the flags and every
// command live in internal/cli (so tests run them in-process); main hands
// them the process's streams and environment, a context cancelled on
// interrupt, and the TUI, which only main may import.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"kvdeck/internal/cli"
	"kvdeck/tui"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), cli.StopSignals()...)
	go exitWhenStuck(ctx, stop)
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, environ(), cli.WithTUI(tui.Run), cli.WithName(os.Args[0]))
	stop()
	os.Exit(code)
}

// exitWhenStuck makes Ctrl-C, SIGTERM and SIGHUP always end the process: once ctx
// is cancelled, a second signal kills it at once (the default action is
// restored), and if the command has not returned within stuckGrace of the
// first (a library call that ignores its context), it exits with 130.
func exitWhenStuck(ctx context.Context, stop func()) {
	<-ctx.Done()
	stop()
	time.Sleep(stuckGrace)
	fmt.Fprintln(os.Stderr, "kvdeck: interrupted: the command did not stop within", stuckGrace, "of the signal; exiting")
	os.Exit(cli.CodeInterrupted)
}

// stuckGrace is how long a cancelled command may take to stop by itself
// (a commit's outcome is settled by a re-read of up to 5 s).
const stuckGrace = 8 * time.Second

// environ returns the process environment as a map.
func environ() map[string]string {
	env := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}
