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

// TestNullRowsAreShownAndFlagged: rows another program
// wrote with a NULL key or a NULL value, and a TEXT value that is not
// UTF-8, in a kv created without NOT NULL. dump lists every physical row
// (a NULL key first, key null, no hex, error "key is NULL"; a NULL value
// as null with error "value is NULL"); list leaves the NULL keys out;
// stats counts every row, those among the undecodable and invalid ones;
// doctor names them; diff of the store and its own dump finds them
// equal; load skips them with a warning. Before: stats and doctor failed
// on the NULL value for the whole store ("converting NULL to int64"),
// dump left out the NULL-key rows (and, over sqld, the NULL-value row),
// and over sqld list, get and dump failed on the TEXT that is not UTF-8
// ("invalid utf-8 sequence").
func TestNullRowsAreShownAndFlagged(t *testing.T) {
	eachBackend(t, func(t *testing.T, c *cli, b storetest.Backend) {
		c.must("set", `["a", "1"]`, "1")
		storetest.Exec(t, c.url,
			"ALTER TABLE kv RENAME TO kv_old",
			"CREATE TABLE kv (k BLOB PRIMARY KEY, v TEXT, ver INTEGER, expires_at INTEGER)",
			"INSERT INTO kv SELECT * FROM kv_old", "DROP TABLE kv_old",
			`INSERT INTO kv VALUES (NULL, '"k1"', 5, NULL)`,
			`INSERT INTO kv VALUES (NULL, NULL, 6, NULL)`,
			`INSERT INTO kv VALUES (x'0261000200', CAST(x'22ff22' AS TEXT), 7, NULL)`, // ["a", ""]
			`INSERT INTO kv VALUES (x'026e00', NULL, 8, NULL)`,                        // ["n"]
		)
		dump := c.must("dump")
		got := lines(dump)
		for i, want := range []string{
			`{"key":null,"value":"k1","versionstamp":"00000000000000000005","expiresAt":null,"expired":false,"error":"key is NULL"}`,
			`{"key":null,"value":null,"versionstamp":"00000000000000000006","expiresAt":null,"expired":false,"error":"key is NULL; value is NULL"}`,
			`"hex":"0261000200","value":"\"\ufffd\"","versionstamp":"00000000000000000007","expiresAt":null,"expired":false,"valueHex":"22ff22","error":"value is not valid JSON"}`,
			`"hex":"026100023100","value":1,`,
			`"hex":"026e00","value":null,"versionstamp":"00000000000000000008","expiresAt":null,"expired":false,"error":"value is NULL"}`,
		} {
			if i >= len(got) || !strings.Contains(got[i], want) {
				t.Errorf("dump line %d is not %s:\n%s", i+1, want, dump)
			}
		}
		if len(got) != 5 {
			t.Errorf("dump printed %d lines for 5 rows:\n%s", len(got), dump)
		}
		text := c.must("-o", "text", "dump")
		for _, want := range []string{`NULL  "k1"  v=00000000000000000005  error: key is NULL`, `NULL  NULL  v=00000000000000000006`, `["n"]  NULL  v=`} {
			if !strings.Contains(text, want) {
				t.Errorf("dump -o text does not show %q:\n%s", want, text)
			}
		}
		if out := c.must("-o", "text", "list"); len(lines(out)) != 3 || strings.Contains(out, "\nNULL") || strings.HasPrefix(out, "NULL") {
			t.Errorf("list shows other than the 3 keyed rows:\n%s", out)
		}
		if out := c.must("-o", "json", "get", `["a", ""]`); !strings.Contains(out, `"valueHex":"22ff22"`) {
			t.Errorf("get of a TEXT that is not UTF-8: %s", out)
		}
		stats := c.must("-o", "json", "stats", "--check")
		if !strings.Contains(stats, `"rows":5,"live":5,"expired":0,"undecodable":2,"invalidValues":2,"checked":true`) {
			t.Errorf("stats --check does not count every row:\n%s", stats)
		}
		if stats := c.must("-o", "json", "stats"); !strings.Contains(stats, `"rows":5,"live":5,"expired":0,"undecodable":2,"invalidValues":null,"checked":false`) {
			t.Errorf("stats does not count every row, or says it checked values:\n%s", stats)
		}
		r := c.run("-o", "text", "doctor")
		for _, want := range []string{"store.undecodable", "2 row(s) whose key does not decode (every one a NULL key)", "store.invalid-json", "2 of them NULL"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("doctor (exit %d) does not say %q:\n%s%s", r.code, want, r.stdout, r.stderr)
			}
		}
		if r := c.runIn(dump, "diff", c.url, "-"); r.code != 0 || !strings.Contains(r.stdout, "0 changed, 5 the same") {
			t.Errorf("diff of the store and its own dump (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
		}
		if r := c.runIn(dump, "-o", "text", "diff", "-", c.url); r.code != 0 {
			t.Errorf("diff of the dump and its store (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
		}
		// One NULL-key row changed, one gone: paired in dump order.
		storetest.Exec(t, c.url, `UPDATE kv SET v = '"k9"' WHERE k IS NULL AND ver = 5`, `DELETE FROM kv WHERE k IS NULL AND ver = 6`)
		r = c.runIn(dump, "-o", "text", "diff", "-", c.url)
		if r.code != 1 || !strings.Contains(r.stdout, `~ NULL  "k1"  v=00000000000000000005  ->  "k9"`) || !strings.Contains(r.stdout, "- NULL  NULL  v=00000000000000000006") {
			t.Errorf("diff after a NULL-key row changed and one was deleted (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
		}
		fresh := &cli{t: t, url: b.URL(t), now: storetest.T0}
		fresh.must("init")
		r = fresh.runIn(dump, "load", "-")
		if r.code != 0 || strings.Count(r.stderr, "skipped, the row does not decode") != 4 {
			t.Errorf("load of the dump (exit %d): want 4 rows skipped with a warning:\n%s%s", r.code, r.stdout, r.stderr)
		}
		c.must("sweep", "--dry-run")
	})
}

// TestTypedKeysAreCountedAndNamed: rows another program keyed by a TEXT,
// an INTEGER or a REAL instead of a BLOB sit before every key in SQLite's
// order, where no read by key or range finds them. stats counts them
// (rows equals count(*), among the undecodable) and doctor names them
// (store.typed-keys, not "dump shows them raw", which it does not);
// list, dump and sweep --dry-run still work. Before: stats said 2 rows
// of 5 and doctor found nothing.
func TestTypedKeysAreCountedAndNamed(t *testing.T) {
	eachBackend(t, func(t *testing.T, c *cli, b storetest.Backend) {
		c.must("set", `["a"]`, "1")
		c.must("set", `["b", 2]`, "2")
		storetest.Exec(t, c.url,
			`INSERT INTO kv VALUES ('text key', '1', 1, NULL)`,
			`INSERT INTO kv VALUES (12, '1', 1, NULL)`,
			`INSERT INTO kv VALUES (1.5, '1', 1, NULL)`,
		)
		if stats := c.must("-o", "json", "stats"); !strings.Contains(stats, `"rows":5,"live":5,"expired":0,"undecodable":3,`) {
			t.Errorf("stats does not count the typed keys:\n%s", stats)
		}
		r := c.run("-o", "text", "doctor")
		if !strings.Contains(r.stdout, "store.typed-keys") || !strings.Contains(r.stdout, "3 row(s) whose key is a number or TEXT") || strings.Contains(r.stdout, "store.undecodable") {
			t.Errorf("doctor (exit %d) does not name the typed keys alone:\n%s%s", r.code, r.stdout, r.stderr)
		}
		if out := c.must("-o", "text", "list"); len(lines(out)) != 2 {
			t.Errorf("list shows other than the 2 keyed rows:\n%s", out)
		}
		c.must("dump")
		c.must("sweep", "--dry-run")
	})
}
