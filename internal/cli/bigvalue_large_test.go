//go:build largedata

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// TestValueOver64MiBRoundTripsLarge: a value over 64 MiB that set takes
// is dumped, and load and diff take that dump back (they refused any line
// over 64 MiB, so such a backup could not be
// restored).
func TestValueOver64MiBRoundTripsLarge(t *testing.T) {
	dir := t.TempDir()
	c := &cli{t: t, url: "file:" + filepath.Join(dir, "big.db"), now: storetest.T0}
	value := `"` + strings.Repeat("0123456789abcdef", 70<<16) + `"` // 70 MiB
	c.must("init")
	if r := c.runIn(value, "set", `["big"]`, "-"); r.code != 0 {
		t.Fatalf("set of a 70 MiB value: exit %d: %s", r.code, r.stderr)
	}
	file := filepath.Join(dir, "dump.jsonl")
	if err := os.WriteFile(file, []byte(c.must("dump")), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := c.run("diff", "--stamps", c.url, file); r.code != 0 {
		t.Errorf("diff of the store and its dump: exit %d: %s", r.code, r.stderr)
	}
	other := &cli{t: t, url: "file:" + filepath.Join(dir, "restored.db"), now: c.now}
	if r := other.run("load", file); r.code != 0 {
		t.Fatalf("load of the dump: exit %d: %s", r.code, r.stderr)
	}
	if r := c.run("diff", c.url, other.url); r.code != 0 {
		t.Errorf("diff of the store and its restored copy: exit %d: %s", r.code, r.stderr)
	}
}
