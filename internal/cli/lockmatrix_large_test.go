//go:build largedata

package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/storetest"
)

// TestLockMatrixLarge: every command that reads a store, run again and
// again (or left running) on a live service's file (a rollback journal,
// 350,000 rows) beside a reference-shaped writer that commits every 10 ms
// with no busy timeout, costs the writer no commit. The commands come from
// the kong tree: a command the matrix does not run, and does not name as
// one that writes or reads no store, fails TestLockMatrixCoversCommands.
// The TUI's tabs and overlays have their matrix in tui
// (TestLockMatrixLarge there), on the same store and writer.
func TestLockMatrixLarge(t *testing.T) {
	var surfaces []storetest.Surface
	for _, c := range cliMatrix() {
		surfaces = append(surfaces, c.surface())
	}
	storetest.LockMatrix(t, surfaces)
}

// surface is the case as the matrix runs it: kvdeck in-process on the
// copy at path (--db, or the store saved as "svc" for the fleet).
func (c cliCase) surface() storetest.Surface {
	name := "kvdeck " + strings.Join(c.args, " ")
	if !c.long {
		name += " (loop)"
	}
	dirs := map[string]string{}
	envOf := func(t *testing.T, path string) map[string]string {
		t.Helper()
		dir, ok := dirs[path]
		if !ok {
			dir = t.TempDir()
			dirs[path] = dir
		}
		return map[string]string{
			"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
			"XDG_STATE_HOME":  filepath.Join(dir, "state"),
			"HOME":            dir,
		}
	}
	return storetest.Surface{
		Name: name,
		Setup: func(t *testing.T, path string) {
			t.Helper()
			if c.setup != nil {
				env := envOf(t, path)
				c.setup(t, path, dirs[path], env)
			}
		},
		Run: func(ctx context.Context, t *testing.T, path string, lockedNotes *int) error {
			t.Helper()
			env := envOf(t, path)
			args := c.args
			if args[0] == "diff" {
				args = append(slices.Clone(args), "file:"+path, "file:"+filepath.Join(dirs[path], "other.db"))
			}
			if args[0] == "stores" { // stores add reads the file it saves
				args = append(slices.Clone(args), "file:"+path)
			} else if args[0] == "copy" {
				args = append([]string{"copy", "--from", "file:" + path, "--to", "file:" + filepath.Join(dirs[path], "target.db")}, args[1:]...)
			} else if args[0] != "fleet" && args[0] != "stores" {
				args = append([]string{"--db", "file:" + path}, args...)
			}
			if c.scrape {
				return scrapeWhile(ctx, args, env, lockedNotes)
			}
			runs := 0
			for {
				var out, errb bytes.Buffer
				code := Main(ctx, args, strings.NewReader(""), &out, &errb, env)
				runs++
				*lockedNotes += strings.Count(errb.String(), "kvdeck now reads it with SQLite's locks")
				if ctx.Err() != nil {
					return nil // cut by the surface's time (a whole dump may take longer)
				}
				if ok := code == 0 && len(c.codes) == 0 || slices.Contains(c.codes, code); !ok || c.long {
					return fmt.Errorf("exit %d after %d runs; stderr: %s", code, runs, firstLines(errb.String(), 5))
				}
			}
		},
	}
}

// firstLines is the first n lines of s.
func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	return strings.Join(ls[:min(n, len(ls))], "\n")
}

// scrapeWhile runs the exporter (args) until ctx ends, reading its
// /metrics every 500 ms (each scrape reads the saved stores): every
// scrape must answer with the store's rows.
func scrapeWhile(ctx context.Context, args []string, env map[string]string, lockedNotes *int) error {
	var out bytes.Buffer
	errb := &storetest.Buffer{}
	done := make(chan int, 1)
	go func() { done <- Main(ctx, args, strings.NewReader(""), &out, errb, env) }()
	defer func() { *lockedNotes += strings.Count(errb.String(), "kvdeck now reads it with SQLite's locks") }()
	scrapes := 0
	for {
		select {
		case code := <-done:
			if ctx.Err() == nil || code != 0 {
				return fmt.Errorf("the exporter ended (exit %d) after %d scrapes: %s", code, scrapes, firstLines(errb.String(), 5))
			}
			if scrapes == 0 {
				return errors.New("no scrape was made")
			}
			return nil
		case <-time.After(500 * time.Millisecond):
		}
		_, addr, ok := strings.Cut(errb.String(), "serving http://")
		if !ok {
			continue
		}
		addr, _, _ = strings.Cut(addr, "/")
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			if ctx.Err() != nil {
				continue
			}
			return err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `kvdeck_store_rows{group="",store="svc"}`) {
			if ctx.Err() != nil {
				continue
			}
			return fmt.Errorf("scrape %d: %d %w\n%s", scrapes, resp.StatusCode, err, firstLines(string(body), 30))
		}
		scrapes++
	}
}
