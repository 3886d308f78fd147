//go:build largedata

package cli

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// The loads at full size (slow
// under -race on a file): scripts/test runs them in its largedata step.
//
//	go test -tags largedata -run 'Load.*Large' ./internal/cli

// TestLoadIfAbsentDefaultBatchLarge: 20,000 absent rows load with --if-absent
// at the default batch on every transport (a server's default batch of
// 5,000 checks failed as "Expression tree is too large"), and loading
// them again writes nothing and counts them existing.
func TestLoadIfAbsentDefaultBatchLarge(t *testing.T) {
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

// TestLoadOneBigBatchLarge: --batch 20000 is one commit of 20,000 rows (60,000
// values to bind: "too many SQL variables" over HTTP before), with and
// without --if-absent.
func TestLoadOneBigBatchLarge(t *testing.T) {
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
