package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
)

// TestDiffPaths: --paths lists under each changed key
// the JSON paths its value changed at, old -> new, as jq writes them
// (a hostile member name escaped), at most --max-paths of them with the
// rest counted; -o json adds a "paths" array (path, jq's getpath steps,
// what happened, each side's value), null when a value is not JSON and
// [] when no path changed (another expiry, or the members in another
// order: a changed row to the row comparison, which compares bytes). Store
// to store on a file and a real
// sqld, and dump to dump.
func TestDiffPaths(t *testing.T) {
	var many, many2 []string
	for i := range 150 {
		many, many2 = append(many, fmt.Sprint(i)), append(many2, fmt.Sprint(-i))
	}
	row := func(k, v string, extra string) string {
		return fmt.Sprintf(`{"key":%q,"value":%s%s}`, `["`+k+`"]`, v, extra)
	}
	exp := fmt.Sprintf(`,"expiresAt":%d`, storetest.T0+60000)
	a := strings.Join([]string{
		row("k1", `{"plan":"gold","seats":12,"tags":["a","b","c"]}`, ""),
		row("k2", `{"a":1,"b":2}`, ""),
		row("k3", `{"x\u001b[2J":1}`, ""),
		row("k4", "["+strings.Join(many, ",")+"]", ""),
		row("k5", `{"a":1}`, ""),
	}, "\n") + "\n"
	b := strings.Join([]string{
		row("k1", `{"plan":"silver","seats":12,"tags":["a","b"],"since":1}`, ""),
		row("k2", `{"b":2.0,"a":1}`, ""),
		row("k3", `{"x\u001b[2J":2}`, ""),
		row("k4", "["+strings.Join(many2, ",")+"]", ""),
		row("k5", `{"a":1}`, exp),
	}, "\n") + "\n"
	wantText := []string{
		`~ .plan  "gold"  ->  "silver"`,
		`- .tags[2]  "c"`,
		`+ .since  1`,
		`~ .["x\u001b[2J"]  1  ->  2`,
		`~ [1]  1  ->  -1`,
		`… 49 more path(s) (--max-paths)`,
		`(no path changed: the same value in another member order)`,
		`(no path changed: the same value; another expiry or stamp)`,
	}
	check := func(t *testing.T, c *cli, urlA, urlB string) {
		t.Helper()
		r := c.run("diff", "--paths", urlA, urlB)
		if r.code != 1 || strings.Contains(r.stdout, "\x1b") {
			t.Fatalf("diff --paths: exit %d %s\n%s", r.code, r.stderr, r.stdout)
		}
		for _, w := range wantText {
			if !strings.Contains(r.stdout, "\n    "+w+"\n") {
				t.Errorf("no line %q in:\n%s", w, r.stdout)
			}
		}
		if !strings.HasSuffix(r.stdout, "# 0 added, 0 removed, 5 changed, 0 the same\n") {
			t.Errorf("summary:\n%s", r.stdout)
		}
		if all := c.run("diff", "--paths", "--max-paths", "0", urlA, urlB); strings.Contains(all.stdout, "more path") || !strings.Contains(all.stdout, "~ [149]  149  ->  -149") {
			t.Errorf("--max-paths 0 does not list every path:\n%.2000s", all.stdout)
		}
		r = c.run("-o", "json", "diff", "--paths", urlA, urlB)
		got := map[string]string{}
		for _, l := range lines(r.stdout) {
			var d struct {
				Key       []struct{ Value string } `json:"key"`
				Paths     json.RawMessage          `json:"paths"`
				MorePaths int                      `json:"morePaths"`
			}
			if err := json.Unmarshal([]byte(l), &d); err != nil {
				t.Fatal(err)
			}
			if len(d.Key) == 1 {
				got[d.Key[0].Value] = fmt.Sprintf("%s %d", d.Paths, d.MorePaths)
			}
		}
		want := map[string]string{
			"k1": `[{"path":".plan","steps":["plan"],"diff":"changed","a":"gold","b":"silver"},{"path":".tags[2]","steps":["tags",2],"diff":"removed","a":"c"},{"path":".since","steps":["since"],"diff":"added","b":1}] 0`,
			"k3": `[{"path":".[\"x\\u001b[2J\"]","steps":["x\u001b[2J"],"diff":"changed","a":1,"b":2}] 0`,
			"k5": `[] 0`,
			"k2": `[] 0`,
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: paths\n got %s\nwant %s", k, got[k], w)
			}
		}
		if !strings.HasSuffix(got["k4"], "] 49") {
			t.Errorf("k4: %.200s", got["k4"])
		}
		if plain := c.run("-o", "json", "diff", urlA, urlB); strings.Contains(plain.stdout, `"paths"`) {
			t.Errorf("paths without --paths: %.300s", plain.stdout)
		}
	}
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, be storetest.Backend) {
		urlA, urlB := be.URL(t), be.URL(t)
		sa := &cli{t: t, url: urlA, now: storetest.T0}
		sb := &cli{t: t, url: urlB, now: storetest.T0}
		if r := sa.runIn(a, "load", "-"); r.code != 0 {
			t.Fatalf("load A: %+v", r)
		}
		if r := sb.runIn(b, "load", "-"); r.code != 0 {
			t.Fatalf("load B: %+v", r)
		}
		check(t, sa, urlA, urlB)
		if be.Name == "file" {
			// Dump to dump, with a value that is not JSON: no paths.
			dumpA := writeFile(t, "a.jsonl", sa.must("dump"))
			dumpB := writeFile(t, "b.jsonl", sb.must("dump"))
			check(t, sa, dumpA, dumpB)
			odd := dumpLine(`[{"type":"string","value":"z"}]`, "027a00", `"x"`, 1, "null")
			oddA := writeFile(t, "oa.jsonl", odd+"\n")
			oddB := writeFile(t, "ob.jsonl", strings.Replace(odd, `"value":"x"`, `"value":"{not json","error":"value is not valid JSON"`, 1)+"\n")
			r := sa.run("diff", "--paths", oddA, oddB)
			if r.code != 1 || !strings.Contains(r.stdout, "\n    (a value is not JSON: no paths)\n") {
				t.Errorf("not JSON: exit %d %s\n%s", r.code, r.stderr, r.stdout)
			}
			if r := sa.run("-o", "json", "diff", "--paths", oddA, oddB); !strings.Contains(r.stdout, `"paths":null`) {
				t.Errorf("not JSON, -o json: %s", r.stdout)
			}
		}
	})
}
