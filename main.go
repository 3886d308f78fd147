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
	"os"
	"os/signal"
	"strings"
	"syscall"

	"kvdeck/internal/cli"
	"kvdeck/tui"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, environ(), cli.WithTUI(tui.Run))
	stop()
	os.Exit(code)
}

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
