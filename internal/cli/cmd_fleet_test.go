package cli

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
)

// fleetRows parses fleet doctor's JSON lines.
func fleetRows(t *testing.T, out string) map[string]fleetDoctorRow {
	t.Helper()
	return fleetLines(t, out, func(r fleetDoctorRow) string { return r.Store })
}

// fleetMix are the stores the fleet tests read beside their own files:
// the reference's store and a missing file (group files), an sqld that
// answers and one behind a proxy that never answers in time (group
// sqld), and an sqld the test stops (group stopped); set writes a row on
// each sqld. conf is their lines of config.toml.
type fleetMix struct {
	conf     string
	up, down *sqldtest.Server
}

func newFleetMix(t *testing.T, dir string, set func(url string)) fleetMix {
	t.Helper()
	reference := storetest.CopyReference(t)
	up, down := sqldtest.Start(t), sqldtest.Start(t)
	set(up.URL)
	set(down.URL)
	hung := sqldtest.StartProxy(t, up.URL, time.Hour)
	conf := `[stores.reference]
url = "` + reference + `"
group = "files"
[stores.missing]
url = "` + filepath.Join(dir, "missing.db") + `"
group = "files"
[stores.sqld-up]
url = "` + up.URL + `"
group = "sqld"
[stores.sqld-down]
url = "` + down.URL + `"
group = "stopped"
[stores.sqld-hung]
url = "` + hung.URL + `"
group = "sqld"
`
	return fleetMix{conf: conf, up: up, down: down}
}

// fleetLines parses a fleet command's JSON lines, a row a store, by the
// store's name; they must come in name order.
func fleetLines[R any](t *testing.T, out string, name func(R) string) map[string]R {
	t.Helper()
	rows := map[string]R{}
	var order []string
	for _, r := range jsonLines[R](t, out) {
		rows[name(r)] = r
		order = append(order, name(r))
	}
	if !slices.IsSorted(order) {
		t.Errorf("rows not in name order: %v", order)
	}
	return rows
}

// TestFleetDoctor: seven saved stores, files and two sqld servers (the
// second stopped between two runs) and one behind a proxy that never
// answers in time; each gets its row, the unreachable ones as errors, without
// holding up the others beyond --timeout.
func TestFleetDoctor(t *testing.T) {
	env := storesEnv(t)
	now := strconv.FormatInt(storetest.T0, 10)
	at := func(url string, args ...string) { t.Helper(); mustAt(t, env, url, storetest.T0, args...) }
	dir := t.TempDir()
	healthy := "file:" + filepath.Join(dir, "healthy.db")
	at(healthy, "set", `["a"]`, "1")
	broken := "file:" + filepath.Join(dir, "broken.db")
	at(broken, "alarm", "set", "Cart", "lost", "+1s")
	at(broken, "delete", `["dwk_alarm_due", "Cart", 1767312001000, "lost"]`)
	mix := newFleetMix(t, dir, func(url string) { at(url, "set", `["a"]`, "1") }) // the reference: warnings and infos only, healthy
	up, down := mix.up, mix.down
	configFile(t, env, `[stores.healthy]
url = "`+healthy+`"
group = "files"
[stores.broken]
url = "`+broken+`"
group = "files"
`+mix.conf, 0o600)

	start := time.Now()
	r := runMain(t, env, "", []string{"--now", now, "fleet", "doctor", "--timeout", "5s", "--concurrency", "3"})
	took := time.Since(start)
	rows := fleetRows(t, r.stdout)
	if r.code != CodeError || len(rows) != 7 {
		t.Fatalf("exit %d, %d rows\n%s%s", r.code, len(rows), r.stdout, r.stderr)
	}
	for name, want := range map[string]string{"healthy": "healthy", "reference": "healthy", "sqld-up": "healthy",
		"broken": "findings", "missing": "error", "sqld-down": "healthy", "sqld-hung": "error"} {
		if rows[name].Status != want {
			t.Errorf("%s: %+v, want %s", name, rows[name], want)
		}
	}
	if b := rows["broken"]; b.Errors != 1 || b.Findings[0].Code != "alarm.never-fires" {
		t.Errorf("broken: %+v", b)
	}
	if ref := rows["reference"]; ref.Warnings != 2 || ref.Infos != 6 { // the probe left over, the rollback journal
		t.Errorf("reference: %+v", ref)
	}
	// The hung store costs its timeout, not an hour; generous bound for a
	// busy machine.
	if took > time.Minute {
		t.Errorf("fleet doctor took %s with --timeout 5s", took)
	}
	t.Logf("7 stores, one hung behind --timeout 5s: %s (hung row %dms: %s)", took.Round(time.Millisecond), rows["sqld-hung"].MS, rows["sqld-hung"].Error)

	// The second server stops: its row turns into an error.
	down.Stop()
	r = runMain(t, env, "", []string{"--now", now, "fleet", "doctor", "--group", "stopped"})
	if rows := fleetRows(t, r.stdout); r.code != CodeError || rows["sqld-down"].Status != "error" || !strings.Contains(rows["sqld-down"].Error, "unreachable") {
		t.Errorf("sqld-down once stopped: %+v", r)
	}

	// A group: exit 1 for a store with an error finding, 0 for healthy ones.
	env2 := env
	configFile(t, env2, `[stores.healthy]
url = "`+healthy+`"
group = "ok"
[stores.sqld-up]
url = "`+up.URL+`"
group = "ok"
[stores.broken]
url = "`+broken+`"
group = "bad"
`, 0o600)
	if r := runMain(t, env2, "", []string{"--now", now, "fleet", "doctor", "--group", "ok"}); r.code != 0 || len(fleetRows(t, r.stdout)) != 2 {
		t.Errorf("group ok: %+v", r)
	}
	if r := runMain(t, env2, "", []string{"--now", now, "fleet", "doctor", "-g", "bad", "-o", "text"}); r.code != CodeNotDone ||
		!strings.HasPrefix(r.stdout, "broken  findings  1 error, 0 warning, 0 info") || !strings.Contains(r.stdout, "\n  error  alarm.never-fires") {
		t.Errorf("group bad, text: %+v", r)
	}
	if r := runMain(t, env2, "", []string{"fleet", "doctor", "-g", "nope"}); r.code != CodeError || !strings.Contains(r.stderr, "no saved store in group nope") {
		t.Errorf("empty group: %+v", r)
	}
}
