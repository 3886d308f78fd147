package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// loadLines is n load lines of keys ["l", 0] ... ["l", n-1].
func loadLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"key\":\"[\\\"l\\\", %d]\",\"value\":%d}\n", i, i)
	}
	return b.String()
}

// TestLoadIfAbsentPastTheDepthLimit: 1,500 absent rows with --if-absent
// at the default batch (all in one commit on a server: "Expression tree is
// too large (maximum depth 1000)" before), and again: nothing written, all
// counted existing. load_large_test.go loads 20,000.
func TestLoadIfAbsentPastTheDepthLimit(t *testing.T) {
	const n = 1500
	in := loadLines(n)
	eachBackend(t, func(t *testing.T, c *cli, _ storetest.Backend) {
		r := c.runIn(in, "-o", "json", "load", "--if-absent", "-")
		if r.code != 0 || !strings.HasPrefix(r.stdout, fmt.Sprintf(`{"loaded":%d,"skipped":0,`, n)) {
			t.Fatalf("load --if-absent of %d rows: exit %d\n%s%s", n, r.code, r.stdout, r.stderr)
		}
		r = c.runIn(in, "-o", "json", "load", "--if-absent", "-")
		if r.code != 0 || !strings.HasPrefix(r.stdout, fmt.Sprintf(`{"loaded":0,"skipped":%d,"batches":0,"expired":0,"existing":%d,`, n, n)) {
			t.Fatalf("the same load again: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
}

// TestLoadBatchPastTheVariableLimit: --batch 12000 over HTTP is one commit
// of 12,000 rows (36,000 values to bind: "too many SQL variables" before),
// with and without --if-absent.
func TestLoadBatchPastTheVariableLimit(t *testing.T) {
	const n = 12000
	in := loadLines(n)
	storetest.Each(t, []storetest.Backend{storetest.SQLD()}, func(t *testing.T, b storetest.Backend) {
		for _, args := range [][]string{{"load", "--batch", "12000", "-"}, {"load", "--if-absent", "--batch", "12000", "-"}} {
			c := &cli{t: t, url: b.URL(t), now: storetest.T0}
			c.must("init")
			if out := c.mustIn(in, args...); !strings.Contains(out, "loaded 12000 rows in 1 batch") {
				t.Fatalf("%v: %s", args, out)
			}
		}
	})
}

// TestLoadGarbageCreatesNothing: a load whose input is malformed refuses
// before it opens the store, so no new store is left behind.
func TestLoadGarbageCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "new.db")
	in := writeFile(t, "garbage.jsonl", "this is not a dump\n")
	r := runMain(t, nil, "", []string{"--db", "file:" + db, "load", in})
	if r.code == 0 || !strings.Contains(r.stderr, "malformed line") {
		t.Fatalf("load of garbage: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Fatalf("load of garbage left %s behind (%v); files: %v", db, err, storetest.DirNames(t, dir))
	}
}

// mustIn runs args with stdin and fails the test unless the exit code is 0.
func (c *cli) mustIn(stdin string, args ...string) string {
	c.t.Helper()
	r := c.runIn(stdin, args...)
	if r.code != 0 {
		c.t.Fatalf("kvdeck %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// TestLoadLargeValuesOverAServer: 24 rows of 1 MB at the default batch
// (5,000 rows) were one 24 MB request, which sqld refuses over WebSocket;
// a batch now ends at 8 MB of data.
func TestLoadLargeValuesOverAServer(t *testing.T) {
	var in strings.Builder
	value := `"` + strings.Repeat("v", 1<<20) + `"`
	for i := range 24 {
		fmt.Fprintf(&in, "{\"key\":\"[\\\"big\\\", %d]\",\"value\":%s}\n", i, value)
	}
	storetest.Each(t, []storetest.Backend{storetest.SQLDWS().Named("sqld-ws")}, func(t *testing.T, b storetest.Backend) {
		c := &cli{t: t, url: b.URL(t), now: storetest.T0}
		c.must("init")
		out := c.mustIn(in.String(), "load", "--if-absent", "-")
		if !strings.Contains(out, "loaded 24 rows in 3 batches") {
			t.Fatalf("load of 24 MB: %s", out)
		}
	})
}
