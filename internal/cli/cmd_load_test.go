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

// TestLoadIfAbsentDefaultBatch: 20,000 absent rows load with --if-absent
// at the default batch on every transport (a server's default batch of
// 5,000 checks failed as "Expression tree is too large"), and loading
// them again writes nothing and counts them existing.
func TestLoadIfAbsentDefaultBatch(t *testing.T) {
	const n = 20000
	in := loadLines(n)
	eachBackend(t, func(t *testing.T, c *cli, _ storetest.Backend) {
		r := c.runIn(in, "-o", "json", "load", "--if-absent", "-")
		if r.code != 0 || !strings.HasPrefix(r.stdout, `{"loaded":20000,"skipped":0,`) {
			t.Fatalf("load --if-absent of %d rows: exit %d\n%s%s", n, r.code, r.stdout, r.stderr)
		}
		r = c.runIn(in, "-o", "json", "load", "--if-absent", "-")
		if r.code != 0 || !strings.HasPrefix(r.stdout, `{"loaded":0,"skipped":20000,"batches":0,"expired":0,"existing":20000,`) {
			t.Fatalf("the same load again: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
}

// TestLoadOneBigBatch: --batch 20000 is one commit of 20,000 rows (60,000
// values to bind: "too many SQL variables" over HTTP before), with and
// without --if-absent.
func TestLoadOneBigBatch(t *testing.T) {
	const n = 20000
	in := loadLines(n)
	eachBackend(t, func(t *testing.T, c *cli, b storetest.Backend) {
		c.mustIn(in, "load", "--batch", "20000", "-")
		d := &cli{t: t, url: b.URL(t), now: c.now}
		d.must("init")
		out := d.mustIn(in, "load", "--if-absent", "--batch", "20000", "-")
		if !strings.Contains(out, "loaded 20000 rows in 1 batch") {
			t.Fatalf("load --if-absent --batch 20000: %s", out)
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
