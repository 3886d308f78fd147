package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// comparableDump is a dump with what a load cannot keep taken out: the
// versionstamps (the store issues new ones) and the flag of a column the
// reference never writes (load writes it as the reference would, as the
// same instant; see TestDumpLoadRoundTrip).
func comparableDump(t *testing.T, dump string) []string {
	t.Helper()
	var out []string
	for _, l := range lines(dump) {
		var row map[string]any
		d := json.NewDecoder(strings.NewReader(l))
		d.UseNumber()
		if err := d.Decode(&row); err != nil {
			t.Fatalf("dump line %q: %v", l, err)
		}
		delete(row, "versionstamp")
		delete(row, "malformed")
		b, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// TestDumpLoadRoundTripExtremes: whatever dump writes, load reads, and a
// dump of
// the loaded store is the same dump (before the fix an
// expiresAt more than ~292 years from now, or far in the past, made load
// refuse the whole file, and a row with a REAL expiry was skipped).
func TestDumpLoadRoundTripExtremes(t *testing.T) {
	eachBackend(t, func(t *testing.T, c *cli, b storetest.Backend) {
		// every key part kind, odd values, and extreme expiries
		for _, set := range [][]string{
			{`["s", "", "a\u0000b", "\u2028\u202e\u009b", "😀"]`, `{"s":"\u001b]52;c;eA==\u0007","n":-0,"big":1e308}`},
			{`["n", 0, -0, 1.5, -1e-300, 1.7976931348623157e308, Infinity, -Infinity]`, `[1, 2.5, null, true, "x"]`},
			{`["b", 0n, -1n, 9223372036854775807n, -9223372036854775808n]`, `"bigints"`},
			{`["t", true, false]`, `true`},
			{`["u", b"", b"00", b"ff00ff", b"0001fe"]`, `null`},
			{`[]`, `"the empty key"`},
			{`["mixed", "1", 1, 1n, true, b"31"]`, `{"nested":{"a":[{"b":[]}]}}`},
		} {
			c.must("set", set[0], set[1])
		}
		storetest.Exec(t, c.url,
			// ["x", "max"]: expires at the largest epoch millisecond
			fmt.Sprintf(`INSERT INTO kv VALUES (x'027800026d617800', '1', 100, %d)`, int64(math.MaxInt64)),
			// ["x", "min"]: expired at the smallest
			fmt.Sprintf(`INSERT INTO kv VALUES (x'027800026d696e00', '2', 101, %d)`, int64(math.MinInt64)),
			// ["x", "far"]: 1000 years ahead, ["x", "past"]: 1000 years ago
			fmt.Sprintf(`INSERT INTO kv VALUES (x'0278000266617200', '3', 102, %d)`, storetest.T0+1000*365*24*3600*1000),
			fmt.Sprintf(`INSERT INTO kv VALUES (x'027800027061737400', '4', 103, %d)`, storetest.T0-1000*365*24*3600*1000),
			// ["x", "soon"]: live 1 ms more; ["x", "now"]: expires exactly
			// now (dead)
			fmt.Sprintf(`INSERT INTO kv VALUES (x'02780002736f6f6e00', '5', 104, %d)`, storetest.T0+1),
			fmt.Sprintf(`INSERT INTO kv VALUES (x'027800026e6f7700', '6', 105, %d)`, storetest.T0),
			// REAL expiries a JS writer leaves: fractional, whole, and past
			// the int64 range
			fmt.Sprintf(`INSERT INTO kv VALUES (x'0278000272656100', '7', 106, %d.5)`, storetest.T0+1000),
			fmt.Sprintf(`INSERT INTO kv VALUES (x'027800027265616c00', '8', 107, %d.0)`, storetest.T0+2000),
			`INSERT INTO kv VALUES (x'027800026875676500', '9', 108, 1e30)`,
			`INSERT INTO kv VALUES (x'02780002746e7900', '10', 109, -1e30)`,
		)
		dump := c.must("dump")
		if !strings.Contains(dump, `"expiresAt":9223372036854775807`) || !strings.Contains(dump, `"expiresAt":-9223372036854775808`) {
			t.Fatalf("the dump lacks the extreme expiries:\n%s", dump)
		}
		fresh := &cli{t: t, url: b.URL(t), now: c.now}
		path := writeFile(t, "dump.jsonl", dump)
		if r := fresh.run("load", "--include-expired", path); r.code != 0 {
			t.Fatalf("load of a dump: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		want, got := comparableDump(t, dump), comparableDump(t, fresh.must("dump"))
		if strings.Join(want, "\n") != strings.Join(got, "\n") {
			t.Errorf("dump | load | dump differs:\nwant\n%s\n got\n%s", strings.Join(want, "\n"), strings.Join(got, "\n"))
		}
		// and a second round trip changes nothing at all, stamps aside
		again := &cli{t: t, url: b.URL(t), now: c.now}
		if r := again.runIn(fresh.must("dump"), "load", "--include-expired", "-"); r.code != 0 {
			t.Fatalf("second load: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		if g2 := comparableDump(t, again.must("dump")); strings.Join(g2, "\n") != strings.Join(got, "\n") {
			t.Errorf("a second round trip differs:\n%s\n%s", strings.Join(got, "\n"), strings.Join(g2, "\n"))
		}
	})
}
