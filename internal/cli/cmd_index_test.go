package cli

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// TestIndexCommand: index shows, adds and drops kvdeck_kv_ver, never
// another index, refuses on a read-only store, and the store keeps
// working with it.
func TestIndexCommand(t *testing.T) {
	eachBackend(t, func(t *testing.T, c *cli, b storetest.Backend) {
		if out := c.must("index"); !strings.Contains(out, "no index on ver") {
			t.Errorf("index (show) on a fresh store: %q", out)
		}
		if out := c.must("index", "add"); !strings.Contains(out, "created the index kvdeck_kv_ver") || !strings.Contains(out, "index on ver: kvdeck_kv_ver") {
			t.Errorf("index add: %q", out)
		}
		if out := c.must("index", "add"); !strings.Contains(out, "exists already") {
			t.Errorf("index add again: %q", out)
		}
		storetest.Exec(t, c.url, "CREATE INDEX theirs ON kv (ver, k)")
		if out := c.must("-o", "json", "index", "show"); !strings.Contains(out, `"indexed":true`) || !strings.Contains(out, `"name":"theirs","ours":false`) {
			t.Errorf("index show: %q", out)
		}
		c.must("set", `["a"]`, "1")
		if out := c.must("get", `["a"]`); !strings.Contains(out, "1") {
			t.Errorf("get beside the index: %q", out)
		}
		if r := c.run("--read-only", "index", "drop"); r.code != 2 || !strings.Contains(r.stderr, "read-only") {
			t.Errorf("a read-only drop: %+v", r)
		}
		if out := c.must("index", "drop"); !strings.Contains(out, "dropped the index kvdeck_kv_ver") || !strings.Contains(out, "theirs (not kvdeck's") {
			t.Errorf("index drop: %q", out)
		}
		if out := c.must("index", "drop"); !strings.Contains(out, "there is no index kvdeck_kv_ver") {
			t.Errorf("index drop again: %q", out)
		}
	})
}
