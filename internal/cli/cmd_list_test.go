package cli

import (
	"fmt"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// TestListWhere: list --where keeps the values a jq expression selects,
// --contains those holding a substring; --limit counts matches; the
// range, order and expiry rules stay list's; a value the expression fails
// on is skipped and counted on stderr; a bad expression is refused
// (exit 2) before anything is read, naming the flag and the column.
func TestListWhere(t *testing.T) {
	eachBackend(t, func(t *testing.T, c *cli, _ storetest.Backend) {
		for i := 1; i <= 6; i++ {
			c.must("set", fmt.Sprintf(`["q", %d]`, i), fmt.Sprintf(`{"attempts":%d,"to":"u%d@example.com"}`, i%3, i))
		}
		c.must("set", `["q", 7]`, `"central"`)
		c.must("set", `["q", 8]`, `{"attempts":2}`, "--expire-in", "1s")
		c.must("set", `["r"]`, `{"attempts":2}`)
		keys := func(out string) string {
			var ks []string
			for _, l := range lines(out) {
				ks = append(ks, strings.SplitN(l, "  ", 2)[0])
			}
			return strings.Join(ks, " ")
		}
		r := c.run("list", `["q"]`, "--where", ".attempts == 2")
		if r.code != 0 || keys(r.stdout) != `["q", 2] ["q", 5] ["q", 8]` || !strings.Contains(r.stderr, `failed on 1 value(s)`) || !strings.Contains(r.stderr, `["q", 7]`) {
			t.Errorf("--where: exit %d %q %q", r.code, r.stdout, r.stderr)
		}
		if out := c.at(storetest.T0+5000).must("list", `["q"]`, "--where", ".attempts == 2", "--reverse", "--limit", "1"); keys(out) != `["q", 5]` {
			t.Errorf("--where, reverse, limit 1, after the expiry: %q", out)
		}
		if out := c.must("list", "--contains", "u4@"); keys(out) != `["q", 4]` {
			t.Errorf("--contains: %q", out)
		}
		if out := c.must("list", "--where", `$key | test("r")`); keys(out) != `["r"]` {
			t.Errorf("--where on $key: %q", out)
		}
		if out := c.must("-o", "json", "list", `["q"]`, "--where", `.to | endswith("6@example.com")`); !strings.Contains(out, `"value":{"attempts":0,"to":"u6@example.com"}`) || len(lines(out)) != 1 {
			t.Errorf("--where, json: %q", out)
		}
		for _, tc := range [][]string{
			{"--where", ".attempts >", `--where: jq expression ".attempts >": unexpected EOF at column 12`},
			{"--where", "nosuch(1)", "function not defined: nosuch/1"},
			{"--where", " ", "the jq expression is empty"},
			// Given empty, a filter is refused, not dropped (it listed
			// everything before).
			{"--where", "", "--where: the jq expression is empty"},
			{"--contains", "", "--contains: the substring is empty"},
			{"--where", ".", "--contains", "x", "can't be used together"},
		} {
			r := c.run(append([]string{"list"}, tc[:len(tc)-1]...)...)
			if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, tc[len(tc)-1]) {
				t.Errorf("%q: exit %d %q %q", tc, r.code, r.stdout, r.stderr)
			}
		}
	})
}
