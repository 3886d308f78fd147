package cli

import (
	"fmt"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// TestOddRowsDoNotBreakCommands: one row whose expires_at is a fractional
// REAL (a JS writer adding a fractional expireIn) and one whose ver is
// TEXT must not fail list, dump, stats, doctor, sweep --dry-run or lease
// list; the rows show flagged and doctor names them. Failed before the fix
// with "sql: Scan error" and exit 1 from every one of these commands.
func TestOddRowsDoNotBreakCommands(t *testing.T) {
	eachBackend(t, func(t *testing.T, c *cli, b storetest.Backend) {
		c.must("set", `["a", "plain"]`, "1")
		storetest.Exec(t, c.url,
			fmt.Sprintf(`INSERT INTO kv VALUES (x'0261000272656100', '1', 2, %d.5)`, storetest.T0+1000), // ["a", "rea"]
			`INSERT INTO kv VALUES (x'0261000274787400', '1', 'x', NULL)`,                               // ["a", "txt"]
			fmt.Sprintf(`INSERT INTO kv VALUES (x'0264776b5f6c656173650002430002616200', '{"holder":"h"}', 3, %d.5)`, storetest.T0+1000),
		)
		for _, args := range [][]string{
			{"list", `["a"]`}, {"dump"}, {"stats"}, {"sweep", "--dry-run"}, {"lease", "list"}, {"-o", "text", "dump"},
		} {
			c.must(args...)
		}
		text := c.must("-o", "text", "list", `["a"]`)
		for _, want := range []string{
			`["a", "rea"]  1  v=00000000000000000002  expires=`,
			`error: expires_at is REAL 1767312001000.5`,
			`["a", "txt"]  1  v=00000000000000000000  error: ver is TEXT "x"`,
		} {
			if !strings.Contains(text, want) {
				t.Errorf("list does not show %q:\n%s", want, text)
			}
		}
		r := c.run("-o", "text", "doctor")
		if !strings.Contains(r.stdout, "store.malformed-row") || !strings.Contains(r.stdout, "3 row(s)") {
			t.Errorf("doctor (exit %d) does not report the rows:\n%s%s", r.code, r.stdout, r.stderr)
		}
	})
}
