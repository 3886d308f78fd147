package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"kvdeck/internal/sqldtest"
)

// TestFleetFind: which saved stores hold a key (and its stamp there), and
// how many keys under a prefix, bounded by --max (then "N+"); a missing
// store is an error row (exit 2), a key found nowhere exits 1.
func TestFleetFind(t *testing.T) {
	env := storesEnv(t)
	dir := t.TempDir()
	a, b := "file:"+filepath.Join(dir, "a.db"), "file:"+filepath.Join(dir, "b.db")
	srv := sqldtest.Start(t)
	set := func(db string, args ...string) {
		t.Helper()
		mustMain(t, env, append([]string{"--db", db, "set"}, args...)...)
	}
	set(a, `["u", "x"]`, `1`)
	set(a, `["u", "y"]`, `1`)
	set(a, `["u", "z"]`, `1`)
	set(srv.URL, `["v"]`, `1`)
	set(srv.URL, `["u", "x"]`, `2`) // stamp 2 there
	set(b, `["w"]`, `1`)
	configFile(t, env, `[stores.a]
url = "`+a+`"
[stores.b]
url = "`+b+`"
[stores.srv]
url = "`+srv.URL+`"
group = "s"
[stores.zz-missing]
url = "`+filepath.Join(dir, "none.db")+`"
group = "gone"
`, 0o600)
	rows := func(out string) map[string]fleetFindRow {
		m := map[string]fleetFindRow{}
		for _, l := range lines(out) {
			var r fleetFindRow
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatal(err)
			}
			m[r.Store] = r
		}
		return m
	}
	r := runMain(t, env, "", []string{"-o", "json", "fleet", "find", `["u", "x"]`})
	m := rows(r.stdout)
	if r.code != CodeError || m["a"].Status != "found" || *m["a"].Versionstamp != "00000000000000000001" ||
		*m["srv"].Versionstamp != "00000000000000000002" || m["b"].Status != "absent" || m["zz-missing"].Status != "error" {
		t.Errorf("find: %+v", r)
	}
	if r := runMain(t, env, "", []string{"fleet", "find", "-g", "s", `["u", "x"]`}); r.code != 0 || !strings.Contains(r.stdout, "srv    s      found   00000000000000000002") {
		t.Errorf("find, text: %+v", r)
	}
	if r := runMain(t, env, "", []string{"fleet", "find", "-g", "s", `["nope"]`}); r.code != CodeNotDone || !strings.Contains(r.stdout, "absent") {
		t.Errorf("found nowhere: %+v", r)
	}
	r = runMain(t, env, "", []string{"fleet", "find", "--prefix", "--max", "2", `["u"]`})
	var got []string
	for _, l := range lines(r.stdout) {
		got = append(got, strings.Join(strings.Fields(l), " "))
	}
	if r.code != CodeError || len(got) != 5 || got[1] != "a - 2+" || got[2] != "b - 0" || got[3] != "srv s 1" || !strings.HasPrefix(got[4], "zz-missing gone missing file no database at ") {
		t.Errorf("prefix, bounded:\n%s", r.stdout)
	}
	if m := rows(runMain(t, env, "", []string{"-o", "json", "fleet", "find", "--prefix", `["u"]`}).stdout); *m["a"].Count != 3 || m["a"].More {
		t.Errorf("prefix: %+v", m["a"])
	}
}
