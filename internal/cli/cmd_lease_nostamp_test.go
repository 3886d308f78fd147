package cli

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// TestLeaseBreakOfARowWithNoStamp: a lease row whose ver another writer
// left as TEXT or a fractional REAL is printed by get with the stamp
// 00000000000000000000; lease break takes that stamp back (and breaks it
// without --stamp too), and still refuses once the row has a real stamp
// again. Failed before: --stamp 000… was refused as
// malformed (exit 2), and a break without --stamp never matched (exit 1).
func TestLeaseBreakOfARowWithNoStamp(t *testing.T) {
	eachBackend(t, func(t *testing.T, c *cli, b storetest.Backend) {
		const key = `["dwk_lease", "Cart", "odd"]`
		for _, ver := range []string{`'seven'`, `2.5`} {
			c.must("lease", "acquire", key)
			storetest.Exec(t, c.url, "UPDATE kv SET ver = "+ver)
			const stamp = "00000000000000000000"
			if out := c.must("get", key); !strings.Contains(out, "  v="+stamp+"  ") {
				t.Fatalf("get printed %s", out)
			}
			if out := c.must("lease", "list"); !strings.Contains(out, "  v="+stamp+"  ") {
				t.Fatalf("lease list printed %s", out)
			}
			args := []string{"lease", "break", key, "--stamp", stamp}
			if ver == `2.5` {
				args = args[:3] // its current stamp, as get shows it
			}
			if r := c.run(args...); r.code != 0 || !strings.HasPrefix(r.stdout, "broken "+key+"  v=00000000000000000000") {
				t.Fatalf("break of ver %s: %+v", ver, r)
			}
			if r := c.run("get", key); r.code == 0 {
				t.Fatalf("still there after the break: %+v", r)
			}
		}
		// Rewritten meanwhile with a real stamp: kept.
		c.must("lease", "acquire", key)
		storetest.Exec(t, c.url, "UPDATE kv SET ver = 'seven'")
		c.must("set", key, `{"holder":"new"}`)
		if r := c.run("lease", "break", key, "--stamp", "00000000000000000000"); r.code != 1 || !strings.HasPrefix(r.stdout, "not broken") {
			t.Fatalf("break of a row stamped again: %+v", r)
		}
		if out := c.must("get", key); !strings.Contains(out, "new") {
			t.Fatalf("the row stamped again is gone: %s", out)
		}
	})
}
