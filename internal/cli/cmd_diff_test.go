package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// vectorKeys returns the tagged JSON and hex of every key of the
// reference vectors (every kind of key part), sorted by encoding.
func vectorKeys(t *testing.T) [][2]string {
	t.Helper()
	f, err := os.Open(filepath.Join(storetest.VectorsDir(t), "keys.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	var out [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var v struct {
			Key json.RawMessage `json:"key"`
			Hex string          `json:"hex"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		if !seen[v.Hex] {
			seen[v.Hex] = true
			out = append(out, [2]string{string(v.Key), v.Hex})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][1] < out[j][1] })
	return out
}

// dumpLine is a dump row as kvdeck dump writes it.
func dumpLine(key, hexKey, value string, stamp int, expiresAt string) string {
	return fmt.Sprintf(`{"key":%s,"hex":%q,"value":%s,"versionstamp":"%020d","expiresAt":%s,"expired":false}`, key, hexKey, value, stamp, expiresAt)
}

// TestDiff: dumps holding a key of every kind of part (the reference
// vectors) compared dump to dump, store to dump and store to store (file
// and sqld): each added, removed and changed key once, in key order, the
// summary counts, exit 0 when equal and 1 when not; stamps only count with
// --stamps; --prefix and --live narrow the comparison.
func TestDiff(t *testing.T) {
	keys := vectorKeys(t)
	if len(keys) < 50 {
		t.Fatalf("only %d vector keys", len(keys))
	}
	var a, b []string
	var added, removed, changed, stampOnly int
	for i, k := range keys {
		value, exp := fmt.Sprintf(`{"i":%d}`, i), "null"
		if i%4 == 0 {
			exp = fmt.Sprint(storetest.T0 + 60000)
		}
		a = append(a, dumpLine(k[0], k[1], value, i+1, exp))
		switch {
		case i%7 == 1:
			removed++ // not in b
		case i%5 == 2:
			changed++
			b = append(b, dumpLine(k[0], k[1], `"other"`, i+1, exp))
		case i%11 == 3:
			changed++
			b = append(b, dumpLine(k[0], k[1], value, i+1, fmt.Sprint(storetest.T0+1)))
		case i%3 == 0:
			stampOnly++
			b = append(b, dumpLine(k[0], k[1], value, i+1000, exp))
		default:
			b = append(b, dumpLine(k[0], k[1], value, i+1, exp))
		}
		if i%9 == 4 {
			// a key only b has: the vector key with a part appended
			k2 := strings.TrimSuffix(k[0], "]")
			if k2 != "[" {
				k2 += ","
			}
			k2 += `{"type":"boolean","value":true}]`
			b = append(b, dumpLine(k2, k[1]+"0501", `true`, 9000+i, "null"))
			added++
		}
	}
	// An undecodable row and one whose value is not JSON, as dump prints
	// them: the same on both sides.
	odd := []string{
		`{"key":null,"hex":"ff01","value":1,"versionstamp":"00000000000000000001","expiresAt":null,"expired":false,"error":"key does not decode: codec: invalid tag"}`,
	}
	a, b = append(a, odd...), append(b, odd...)
	sortLines := func(lines []string) {
		sort.Slice(lines, func(i, j int) bool { return hexOf(t, lines[i]) < hexOf(t, lines[j]) })
	}
	sortLines(a)
	sortLines(b)
	dumpA := writeFile(t, "a.jsonl", strings.Join(a, "\n")+"\n")
	dumpB := writeFile(t, "b.jsonl", strings.Join(b, "\n")+"\n")
	summary := func(added, removed, changed, same int) string {
		return fmt.Sprintf("# %d added, %d removed, %d changed, %d the same", added, removed, changed, same)
	}
	// same counts the rows equal but for their stamps.
	same := len(keys) - removed - changed + len(odd)

	c := &cli{t: t, url: "file:" + filepath.Join(t.TempDir(), "unused.db"), now: storetest.T0}
	//nolint:unparam // the first call reads the lines it returns (unparam does not see it)
	check := func(t *testing.T, name string, r result, code int, wantSummary string) []string {
		t.Helper()
		out := lines(r.stdout)
		if r.code != code || len(out) == 0 || out[len(out)-1] != wantSummary {
			t.Fatalf("%s: exit %d, last line %q, want %d and %q\nstderr %s", name, r.code, out[len(out)-1:], code, wantSummary, r.stderr)
		}
		return out
	}
	out := check(t, "dump to dump", c.run("diff", dumpA, dumpB), 1, summary(added, removed, changed, same))
	if len(out)-1 != added+removed+changed {
		t.Errorf("%d difference lines, want %d", len(out)-1, added+removed+changed)
	}
	// In key order, each key once: read the JSON form.
	r := c.run("-o", "json", "diff", dumpA, dumpB)
	var prev string
	counts := map[string]int{}
	for _, line := range lines(r.stdout) {
		var d struct {
			Diff string `json:"diff"`
			Hex  string `json:"hex"`
		}
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatal(err)
		}
		if d.Diff == "" {
			continue // the summary
		}
		if d.Hex <= prev {
			t.Errorf("%s after %s: not in key order", d.Hex, prev)
		}
		prev = d.Hex
		counts[d.Diff]++
	}
	if counts["added"] != added || counts["removed"] != removed || counts["changed"] != changed {
		t.Errorf("json counts %v, want %d/%d/%d", counts, added, removed, changed)
	}
	if last := lines(r.stdout)[len(lines(r.stdout))-1]; last != fmt.Sprintf(`{"summary":{"added":%d,"removed":%d,"changed":%d,"same":%d}}`, added, removed, changed, same) {
		t.Errorf("json summary %s", last)
	}
	check(t, "stamps count", c.run("diff", "--stamps", dumpA, dumpB), 1, summary(added, removed, changed+stampOnly, same-stampOnly))
	check(t, "a dump with itself", c.run("diff", dumpA, dumpA), 0, summary(0, 0, 0, len(a)))
	check(t, "stdin", c.runIn(strings.Join(a, "\n"), "diff", "-", dumpA), 0, summary(0, 0, 0, len(a)))
	check(t, "reversed", c.run("diff", dumpB, dumpA), 1, summary(removed, added, changed, same))
	check(t, "live at a later now", c.at(storetest.T0+120000).run("diff", "--live", dumpA, dumpA), 0, summary(0, 0, 0, len(a)-(len(keys)+3)/4))

	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, be storetest.Backend) {
		urlA, urlB := be.URL(t), be.URL(t)
		c := &cli{t: t, url: c.url, now: storetest.T0}
		sa := &cli{t: t, url: urlA, now: storetest.T0}
		sb := &cli{t: t, url: urlB, now: storetest.T0}
		sa.must("load", "--include-expired", dumpA)
		sb.must("load", "--include-expired", dumpB)
		decodable := len(a) - len(odd) // load skips the undecodable row
		check(t, "store to its dump", c.run("diff", urlA, dumpA), 1, summary(len(odd), 0, 0, decodable))
		check(t, "store to store", c.run("diff", urlA, urlB), 1, summary(added, removed, changed, same-len(odd)))
		check(t, "store to itself", c.run("diff", urlA, urlA), 0, summary(0, 0, 0, decodable))
		if be.Name == "file" {
			path := strings.TrimPrefix(urlA, "file:")
			check(t, "a database by its path", c.run("diff", path, urlA), 0, summary(0, 0, 0, decodable))
		}
		check(t, "new stamps with --stamps", c.run("diff", "--stamps", urlA, urlA), 0, summary(0, 0, 0, decodable))
		// Under a prefix: only its keys, on both sides.
		pr := c.run("diff", "--prefix", `["a"]`, urlA, dumpB)
		for _, l := range lines(pr.stdout) {
			if !strings.HasPrefix(l, "#") && !strings.Contains(l, ` ["a"`) {
				t.Errorf("outside the prefix: %s", l)
			}
		}
		if pr.code != 0 && pr.code != 1 {
			t.Errorf("under a prefix: exit %d %s", pr.code, pr.stderr)
		}
		// The store is never written and never created.
		if r := c.run("diff", "file:"+filepath.Join(t.TempDir(), "missing.db"), dumpA); r.code != 2 {
			t.Errorf("a missing store: exit %d %s", r.code, r.stderr)
		}
	})
}

// hexOf is the hex field of a dump line.
func hexOf(t *testing.T, line string) string {
	t.Helper()
	var v struct {
		Hex string `json:"hex"`
	}
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatal(err)
	}
	return v.Hex
}

// TestDiffBadInput: a dump out of key order, a malformed line, two stdins
// and a missing file are errors (exit 2) naming the side and the line.
func TestDiffBadInput(t *testing.T) {
	c := &cli{t: t, url: "file:" + filepath.Join(t.TempDir(), "unused.db"), now: storetest.T0}
	k1 := dumpLine(`[{"type":"string","value":"b"}]`, "026200", `1`, 1, "null")
	k0 := dumpLine(`[{"type":"string","value":"a"}]`, "026100", `1`, 1, "null")
	good := writeFile(t, "good.jsonl", k0+"\n"+k1+"\n")
	for _, tc := range []struct {
		name, a, b, err string
	}{
		{"out of order", writeFile(t, "unsorted.jsonl", k1+"\n"+k0+"\n"), good, `A line 2: key ["a"] is not after the previous line's ["b"]`},
		{"malformed", good, writeFile(t, "bad.jsonl", k0+"\n{\"key\":1}\n"), "B: line 2.key: codec"},
		{"hex mismatch", good, writeFile(t, "hex.jsonl", strings.Replace(k0, "026100", "026200", 1)+"\n"), "does not match the key"},
		{"two stdins", "-", "-", "at most one of A and B"},
		// The side, then the file once, without Go's "open PATH:".
		{"missing", filepath.Join(t.TempDir(), "nope.jsonl"), good, "kvdeck: A: no file "},
	} {
		r := c.run("diff", tc.a, tc.b)
		if tc.name == "missing" && (strings.Count(r.stderr, "nope.jsonl") != 1 || strings.Contains(r.stderr, "open ")) {
			t.Errorf("missing: stderr %q names the file more than once", r.stderr)
		}
		if r.code != 2 || !strings.Contains(r.stderr, tc.err) {
			t.Errorf("%s: exit %d, stderr %q, want 2 and %q", tc.name, r.code, r.stderr, tc.err)
		}
	}
}

// TestDiffRefusesABadDumpAtOnce: a dump whose keys are out of order is
// refused before anything is printed, whichever side it is and whether it
// is a file or stdin, however much the other side holds; the refusal names
// the keys as key text, escaped. Before the fix the
// store side's 40 rows streamed out as differences first, and the keys
// were hex.
func TestDiffRefusesABadDumpAtOnce(t *testing.T) {
	c := &cli{t: t, url: "file:" + filepath.Join(t.TempDir(), "kv.db"), now: storetest.T0}
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf(`{"key":"[\"k%02d\"]","value":%d}`, i, i))
	}
	if r := c.runIn(strings.Join(lines, "\n")+"\n", "load", "-"); r.code != 0 {
		t.Fatalf("load: %+v", r)
	}
	z := dumpLine(`[{"type":"string","value":"z\u001b]0;x\u0007"}]`, "027a1b5d303b780700", `1`, 1, "null")
	a := dumpLine(`[{"type":"string","value":"a"}]`, "026100", `1`, 1, "null")
	bad := z + "\n" + a + "\n"
	file := writeFile(t, "unsorted.jsonl", bad)
	want := `line 2: key ["a"] is not after the previous line's ["z\u001b]0;x\u0007"]`
	for _, args := range [][]string{{"diff", c.url, file}, {"diff", file, c.url}, {"diff", c.url, "-"}, {"diff", "-", c.url}, {"-o", "json", "diff", c.url, "-"}} {
		r := c.runIn(bad, args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "\x1b") {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q; want 2, nothing printed, %q", strings.Join(args, " "), r.code, len(r.stdout), r.stderr, want)
		}
	}
}

// TestDiffText: -o text (the default) writes a row as the other text
// outputs do: its value shortened to 80 characters, its expiry in RFC 3339
// with milliseconds, "expired" after an expiry at or before now, and its
// key escaped; -o json keeps the whole value and the
// epoch milliseconds.
func TestDiffText(t *testing.T) {
	c := &cli{t: t, url: "file:" + filepath.Join(t.TempDir(), "kv.db"), now: storetest.T0}
	long := strings.Repeat("x", 1000)
	a := writeFile(t, "a.jsonl", dumpLine(`[{"type":"string","value":"k"}]`, "026b00", `"`+long+`"`, 1, fmt.Sprint(storetest.T0-1))+"\n"+
		dumpLine(`[{"type":"string","value":"l\u001b[2J"}]`, "026c1b5b324a00", `1`, 2, fmt.Sprint(storetest.T0+1500))+"\n")
	b := writeFile(t, "b.jsonl", dumpLine(`[{"type":"string","value":"k"}]`, "026b00", `2`, 3, "null")+"\n")
	r := c.run("diff", a, b)
	want := `~ ["k"]  "` + strings.Repeat("x", 79) + `…  v=00000000000000000001  expires=2026-01-01T23:59:59.999Z  expired  ->  2  v=00000000000000000003` + "\n" +
		`- ["l\u001b[2J"]  1  v=00000000000000000002  expires=2026-01-02T00:00:01.500Z` + "\n" +
		"# 0 added, 1 removed, 1 changed, 0 the same\n"
	if r.code != 1 || r.stdout != want {
		t.Errorf("diff text: exit %d\n got %q\nwant %q", r.code, r.stdout, want)
	}
	r = c.run("-o", "json", "diff", a, b)
	if r.code != 1 || !strings.Contains(r.stdout, long) || !strings.Contains(r.stdout, fmt.Sprintf(`"expiresAt":%d`, storetest.T0-1)) {
		t.Errorf("diff -o json: exit %d, want the whole value and epoch ms: %.300s", r.code, r.stdout)
	}
}
