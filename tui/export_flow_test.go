package tui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/internal/cli"
)

// kvdeckRun runs the CLI in-process; its stdout and exit code.
func kvdeckRun(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), args, strings.NewReader(""), &out, &errb, map[string]string{"XDG_STATE_HOME": t.TempDir()})
	if errb.Len() > 0 {
		t.Logf("kvdeck %v: %s", args, errb.String())
	}
	return out.String(), code
}

// TestFlowBulkExportLoads: Browse marks 250 keys (two pages of reads);
// ; o asks for a path, enter writes the dump; the file is 0600, kvdeck
// load puts the same rows into a fresh store, and kvdeck diff finds the
// file and that store equal to the source under the marked prefix.
func TestFlowBulkExportLoads(t *testing.T) {
	a, src := journaled(t)
	seedRows(t, a.s, 250)
	markAllBulk(a, 250)
	a.keys(";")
	a.waitFor("Bulk action on 250 keys", "export to a dump file")
	a.keys("o")
	a.waitFor("Export 250 keys to a dump file", "file: kvdeck-export-")
	path := filepath.Join(t.TempDir(), "out.jsonl")
	a.keys("ctrl+u")
	a.tm.Type(path)
	a.keys("enter")
	a.waitFor("exported 250 rows to")
	a.final()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".kvdeck-export-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	if out, code := kvdeckRun(t, "--db", fresh, "init"); code != 0 {
		t.Fatalf("init: %d %s", code, out)
	}
	if out, code := kvdeckRun(t, "--db", fresh, "load", path); code != 0 {
		t.Fatalf("load: %d %s", code, out)
	}
	for _, pair := range [][2]string{{src, path}, {src, fresh}} {
		out, code := kvdeckRun(t, "diff", "--prefix", `["bulk"]`, pair[0], pair[1])
		if code != 0 {
			t.Errorf("diff %s %s: exit %d\n%s", pair[0], pair[1], code, out)
		}
	}
	if out, _ := kvdeckRun(t, "--db", fresh, "dump"); strings.Count(out, "\n") != 250 {
		t.Errorf("the fresh store holds %d rows, want 250", strings.Count(out, "\n"))
	}
}

// TestFlowBulkExportRefusesOverwrite: an existing file is not replaced on
// the first enter; the prompt says so, and a second enter replaces it.
func TestFlowBulkExportRefusesOverwrite(t *testing.T) {
	a, _ := journaled(t)
	seedRows(t, a.s, 3)
	a.command(`goto ["bulk", 0]`)
	a.waitFor(`["bulk", 0]`)
	a.keys(" ", " ", " ")
	a.waitFor("3 marked")
	path := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.WriteFile(path, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a.keys(";")
	a.waitFor("Bulk action on 3 keys")
	a.keys("o", "ctrl+u")
	a.tm.Type(path)
	a.keys("enter")
	a.waitFor("That file exists: enter replaces it.")
	if b, _ := os.ReadFile(path); string(b) != "keep\n" {
		t.Fatalf("the file was changed before the second enter: %q", b)
	}
	a.keys("enter")
	a.waitFor("exported 3 rows to")
	a.final()
	if b, _ := os.ReadFile(path); strings.Count(string(b), "\n") != 3 || !strings.Contains(string(b), `"hex":`) {
		t.Fatalf("after the second enter: %q", b)
	}
}

// TestBulkExportGolden: the export prompt over Browse's marks at 120x40
// and 80x24.
func TestBulkExportGolden(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			a := reference(t, false, sz.w, sz.h)
			a.keys("enter")
			a.waitFor(`"hooli"`) // the level's rows are in: j and space act on them
			a.keys("j", "j", " ", "j", " ")
			a.waitFor("2 marked")
			a.keys(";")
			a.waitFor("Bulk action on 2 keys")
			a.keys("o")
			a.waitFor("enter  export")
			golden.RequireEqual(t, a.final().View())
		})
	}
}

// TestFlowBulkExportStopsLeavesNothing: esc during an export (over sqld
// behind a slow proxy, 200 ms a request, so that esc lands between reads)
// stops it and leaves neither the file nor its temporary one.
func TestFlowBulkExportStopsLeavesNothing(t *testing.T) {
	s, p, clock := remoteReference(t, 0)
	seedRows(t, s, 1000)
	a := start(t, s, clock, 120, 40, time.Hour)
	markAllBulk(a, 1000)
	a.keys(";")
	a.waitFor("Bulk action on 1000 keys")
	a.keys("o", "ctrl+u")
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	a.tm.Type(path)
	p.SetDelay(200 * time.Millisecond)
	a.keys("enter")
	a.waitFor("esc stops (nothing is written)")
	a.keys("esc")
	a.waitFor("export stopped (esc) after", "nothing written")
	a.final()
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Fatalf("files left after the stop: %v", left)
	}
}
