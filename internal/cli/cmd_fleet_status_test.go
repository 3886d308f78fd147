package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// statusRows parses fleet status's JSON lines (in name order).
func statusRows(t *testing.T, out string) map[string]fleetStatusRow {
	t.Helper()
	return fleetLines(t, out, func(r fleetStatusRow) string { return r.Store })
}

// TestFleetStatus: seven saved stores (files, the reference's store, a
// missing file, two sqld servers, the second stopped mid-test, and one
// behind a proxy that never answers in time): each its row, the
// unreachable ones as error rows that do not hold up the others beyond
// --timeout; the counts of a store with leases, alarms and queues in
// every state; the text table escapes a hostile group.
func TestFleetStatus(t *testing.T) {
	env := storesEnv(t)
	t0 := storetest.T0
	at := func(url string, now int64, args ...string) { t.Helper(); mustAt(t, env, url, now, args...) }
	dir := t.TempDir()
	busy := "file:" + filepath.Join(dir, "busy.db")
	at(busy, t0, "lease", "acquire", `["dwk_lease", "Cart", "a"]`, "--ttl", "1h")
	at(busy, t0, "lease", "acquire", `["dwk_lease", "Cart", "b"]`, "--ttl", "10s")
	at(busy, t0, "lease", "acquire", `["dwk_lease", "Cart", "c"]`, "--ttl", "1s")
	at(busy, t0, "alarm", "set", "Cart", "late1", "+1s")
	at(busy, t0, "alarm", "set", "Cart", "late2", "+5s")
	at(busy, t0, "alarm", "set", "Cart", "later", "+1h")
	at(busy, t0, "queue", "send", "jobs", `{"n":1}`)
	at(busy, t0+2000, "queue", "send", "jobs", `{"n":2}`)
	at(busy, t0, "queue", "send", "jobs", `{"n":3}`, "--delay", "1h")
	at(busy, t0, "set", `["s"]`, "1", "--expire-in", "1s")
	mix := newFleetMix(t, dir, func(url string) { at(url, t0, "set", `["a"]`, "1") })
	down := mix.down
	configFile(t, env, `[stores.busy]
url = "`+busy+`"
group = "files\u001b]52;c;aGk=\u0007"
[stores.sqld-up-ws]
url = "`+mix.up.WSURL+`"
group = "sqld"
`+mix.conf, 0o600)
	now := strconv.FormatInt(t0+9000, 10)

	start := time.Now()
	r := runMain(t, env, "", []string{"--now", now, "fleet", "-o", "json", "--timeout", "5s", "--concurrency", "3"})
	took := time.Since(start)
	rows := statusRows(t, r.stdout)
	if r.code != CodeError || len(rows) != 7 {
		t.Fatalf("exit %d, %d rows\n%s%s", r.code, len(rows), r.stdout, r.stderr)
	}
	for name, want := range map[string]string{"busy": "ok", "reference": "ok", "missing": "error",
		"sqld-up": "ok", "sqld-up-ws": "ok", "sqld-down": "ok", "sqld-hung": "error"} {
		if rows[name].Status != want {
			t.Errorf("%s: %+v, want %s", name, rows[name], want)
		}
	}
	b := rows["busy"]
	if b.LeasesHeld+b.LeasesExpiring != 2 || b.LeasesExpired != 1 || b.AlarmsOverdue != 2 || b.WorstLatenessMS != 8000 ||
		b.QueueReady != 2 || b.QueueDelayed != 1 || b.OldestReadyMS != 9000 || b.Expired != 2 || b.Rows != 3+3*2+3+1 || b.Seq == nil {
		t.Errorf("busy: %+v", b)
	}
	if u := rows["sqld-up"]; u.Rows != 1 || u.Seq == nil || *u.Seq != 1 || u.Findings != 0 {
		t.Errorf("sqld-up: %+v", u)
	}
	if ref := rows["reference"]; ref.Findings != 8 || ref.FindingErrors != 0 || ref.Rows != 60 {
		t.Errorf("reference: %+v (9 s after T0: 1 warning and 7 infos)", ref)
	}
	if took > time.Minute {
		t.Errorf("fleet took %s with --timeout 5s", took)
	}
	t.Logf("7 stores, one hung behind --timeout 5s: %s", took.Round(time.Millisecond))

	// The text table: the hostile group escaped, error rows in place.
	r = runMain(t, env, "", []string{"--now", now, "fleet", "--group", "sqld", "--timeout", "3s"})
	if r.code != CodeError || !strings.HasPrefix(r.stdout, "STORE ") || strings.Count(r.stdout, "\n") != 4 {
		t.Errorf("text, group sqld: %+v", r)
	}
	r = runMain(t, env, "", []string{"--now", now, "fleet", "status", "--timeout", "3s"})
	if strings.ContainsAny(r.stdout, "\x1b\x07") || !strings.Contains(r.stdout, `files\u001b]52;c;aGk=\u0007`) {
		t.Errorf("the group reached the terminal raw:\n%q", r.stdout)
	}
	if l := lines(r.stdout); len(l) != 8 || !strings.HasPrefix(l[1], "busy ") || !strings.Contains(l[1], " 2 (8s) ") || !strings.Contains(l[1], " 2/1/9s/0 ") {
		t.Errorf("text table:\n%s", r.stdout)
	}
	// The rows after an error row (missing) stay in the header's columns.
	if l := lines(r.stdout); len(l) == 8 {
		col := strings.Index(l[0], "ROWS")
		if ref := l[3]; !strings.HasPrefix(ref, "reference ") || len(ref) <= col || !strings.HasPrefix(ref[col:], "60 ") {
			t.Errorf("the reference row left the ROWS column (%d):\n%s", col, r.stdout)
		}
	}

	// The second server stops mid-test: its row turns into an error, the
	// others are unchanged.
	down.Stop()
	r = runMain(t, env, "", []string{"--now", now, "fleet", "-o", "json", "-g", "stopped"})
	if rows := statusRows(t, r.stdout); r.code != CodeError || rows["sqld-down"].Status != "error" || !strings.Contains(rows["sqld-down"].Error, "unreachable") {
		t.Errorf("sqld-down once stopped: %+v", r)
	}
	if r := runMain(t, env, "", []string{"--now", now, "fleet", "-o", "json", "-g", "files"}); r.code != CodeError || len(statusRows(t, r.stdout)) != 2 {
		t.Errorf("group files: %+v", r)
	}
}

// TestFleetStatusBudget: 50 saved stores behind the 50 ms latency proxy
// (one sqld holding the reference's rows, each store a name for it), read
// by one kvdeck fleet: the requests are counted, per store, never timed
// (it took 4 per store before: the open's schema check and coord.Inspect's
// three reads).
func TestFleetStatusBudget(t *testing.T) {
	env := storesEnv(t)
	srv := sqldtest.Start(t)
	storetest.CopyReferenceRows(t, srv.URL)
	proxy := sqldtest.StartProxy(t, srv.URL, 50*time.Millisecond)
	var cfg strings.Builder
	const n = 50
	for i := range n {
		cfg.WriteString("[stores.s" + strconv.Itoa(100+i) + "]\nurl = \"" + proxy.URL + "\"\n")
	}
	configFile(t, env, cfg.String(), 0o600)
	now := strconv.FormatInt(storetest.T0, 10)
	var r result
	start := time.Now()
	reqs := proxy.Count(func() { r = runMain(t, env, "", []string{"--now", now, "fleet", "-o", "json", "--concurrency", "16"}) })
	took := time.Since(start)
	rows := statusRows(t, r.stdout)
	if r.code != 0 || len(rows) != n {
		t.Fatalf("exit %d, %d rows\n%s", r.code, len(rows), r.stderr)
	}
	if rows["s100"].Rows != 60 {
		t.Errorf("s100: %+v", rows["s100"])
	}
	t.Logf("%d stores behind 50 ms, --concurrency 16: %d requests (%.1f per store), %s", n, reqs, float64(reqs)/n, took.Round(time.Millisecond))
	// Issue 21's budget: at most one request per store and refresh (the
	// open sends none; the pulse's one statement is the schema check).
	if reqs > n || fleetRequestsPerStore != 1 {
		t.Errorf("%d requests for %d stores, want at most one per store", reqs, n)
	}
}

// TestFleetStatusWatch: kvdeck fleet -w reads the stores again every
// interval until interrupted (exit 0); from the second round a store
// being written to has a commit rate above zero, a quiet one zero.
func TestFleetStatusWatch(t *testing.T) {
	env := storesEnv(t)
	dir := t.TempDir()
	busy, quiet := "file:"+filepath.Join(dir, "busy.db"), "file:"+filepath.Join(dir, "quiet.db")
	for _, url := range []string{busy, quiet} {
		if r := runMain(t, env, "", []string{"--db", url, "set", `["a"]`, "1"}); r.code != 0 {
			t.Fatalf("%+v", r)
		}
	}
	configFile(t, env, "[stores.busy]\nurl = \""+busy+"\"\n[stores.quiet]\nurl = \""+quiet+"\"\n", 0o600)
	s := storetest.Open(t, busy, store.Options{})
	stop := make(chan struct{})
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := s.Set(context.Background(), storetest.Key(t, `["w", `+strconv.Itoa(i)+`]`), []byte(`1`), nil); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code := Main(ctx, []string{"fleet", "-o", "json", "-w", "300ms"}, strings.NewReader(""), &out, &errb, env)
	close(stop)
	<-wrote
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	var busyRates, quietRates []float64
	for _, l := range lines(out.String()) {
		var r fleetStatusRow
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if r.Status != "ok" || r.CommitsPerSec == nil {
			continue
		}
		if r.Store == "busy" {
			busyRates = append(busyRates, *r.CommitsPerSec)
		} else {
			quietRates = append(quietRates, *r.CommitsPerSec)
		}
	}
	t.Logf("busy %v, quiet %v", busyRates, quietRates)
	if len(busyRates) == 0 || slices.Max(busyRates) <= 0 || len(quietRates) == 0 || slices.Max(quietRates) != 0 {
		t.Errorf("commit rates: busy %v, quiet %v; want some above zero and zeros", busyRates, quietRates)
	}
}

// TestSparkText: a zero is the lowest block, the largest the highest.
func TestSparkText(t *testing.T) {
	if got := sparkText([]float64{0, 1, 2, 4, 8}); got != "▁▂▃▅█" {
		t.Errorf("sparkText: %q", got)
	}
}

// TestFleetStatusEstimates: a store whose rowids span more than the
// pulse's sample gets its rows and expired rows estimated, said so (~ and
// a line under the table; estimated and sampledRows in JSON) and close;
// a small store's are exact. Before, EXPIRED counted over the first
// 100,000 rows in key order showed a bound (≥11 for 50,011).
func TestFleetStatusEstimates(t *testing.T) {
	env := storesEnv(t)
	dir := t.TempDir()
	big, small := filepath.Join(dir, "big.db"), filepath.Join(dir, "small.db")
	storetest.SeedRollbackJournal(t, big, 30_000)
	storetest.Exec(t, "file:"+big, `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 6000) `+
		`INSERT INTO kv SELECT CAST(x'0274310004' || unhex(printf('8%015x', i)) AS BLOB), '1', 30000 + i, `+strconv.FormatInt(storetest.T0, 10)+` FROM c`)
	storetest.SeedRollbackJournal(t, small, 300)
	configFile(t, env, "[stores.big]\nurl = \"file:"+big+"\"\n[stores.small]\nurl = \"file:"+small+"\"\n", 0o600)
	now := strconv.FormatInt(storetest.T0+1, 10)
	r := runMain(t, env, "", []string{"--now", now, "fleet", "-o", "json"})
	rows := statusRows(t, r.stdout)
	b, s := rows["big"], rows["small"]
	if r.code != 0 || !b.Estimated || b.SampledRows == 0 || b.SampledRows > 4096 || s.Estimated || s.Rows != 300 || s.Expired != 0 {
		t.Fatalf("exit %d: big %+v, small %+v; want big estimated from at most 4096 rows, small exact", r.code, b, s)
	}
	if b.Rows < 34_200 || b.Rows > 37_800 || b.Expired < 5_400 || b.Expired > 6_600 {
		t.Errorf("big: ~%d rows, ~%d expired; want 36000 and 6000 within 5%% and 10%%", b.Rows, b.Expired)
	}
	r = runMain(t, env, "", []string{"--now", now, "fleet"})
	t.Logf("kvdeck fleet:\n%s", r.stdout)
	l := lines(r.stdout)
	if len(l) != 4 || !strings.Contains(l[1], " ~36k ") || !strings.Contains(l[1], " ~6.") || !strings.Contains(l[2], " 300 ") ||
		!strings.HasPrefix(l[3], "~ estimated from a sample of at most 4096 rows") {
		t.Errorf("text:\n%s", r.stdout)
	}
}

// TestFleetStatusWatchKeepsStoresOpen: kvdeck fleet -w opens each store
// once and reads it every round: a sqld with JWT auth whose token comes
// from a token_command runs that command once however many rounds there
// are (it ran every round, and the store was opened anew each time). A
// store whose read fails is opened again the next round (a file created
// after the first round is then read), and a file replaced by another
// database is read anew, not through the handle of the removed one.
func TestFleetStatusWatchKeepsStoresOpen(t *testing.T) {
	env := storesEnv(t)
	dir := t.TempDir()
	srv := sqldtest.Start(t, sqldtest.WithJWT())
	token := srv.Token(t)
	if r := runMain(t, env, "", []string{"--db", srv.URL, "--auth-token", token, "set", `["a"]`, "1"}); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	runs := filepath.Join(dir, "runs")
	tokFile := writeFile(t, "tok", token)
	late, replaced := filepath.Join(dir, "late.db"), filepath.Join(dir, "replaced.db")
	if r := runMain(t, env, "", []string{"--db", replaced, "set", `["a"]`, "1"}); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	configFile(t, env, "[stores.jwt]\nurl = \""+srv.URL+"\"\ntoken_command = \"echo run >> "+runs+"; cat "+tokFile+"\"\n"+
		"[stores.late]\nurl = \"file:"+late+"\"\n[stores.replaced]\nurl = \"file:"+replaced+"\"\n", 0o600)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb bytes.Buffer
	done := make(chan int)
	go func() {
		done <- Main(ctx, []string{"fleet", "-o", "json", "-w", "200ms"}, strings.NewReader(""), &out, &errb, env)
	}()
	time.Sleep(700 * time.Millisecond)
	// The late store comes; the replaced one is removed and made again
	// with more commits (seq 3, where the first had 1).
	if r := runMain(t, env, "", []string{"--db", late, "set", `["a"]`, "1"}); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	for _, p := range []string{replaced, replaced + "-wal", replaced + "-shm"} {
		os.Remove(p)
	}
	for i := range 3 {
		if r := runMain(t, env, "", []string{"--db", replaced, "set", `["a"]`, strconv.Itoa(i)}); r.code != 0 {
			t.Fatalf("%+v", r)
		}
	}
	time.Sleep(900 * time.Millisecond)
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	rounds, lateOK, lastReplacedSeq := 0, false, int64(-1)
	for _, l := range lines(out.String()) {
		var r fleetStatusRow
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		switch r.Store {
		case "jwt":
			switch {
			case r.Status == "ok":
				rounds++
			case !strings.Contains(r.Error, "context canceled"): // the interrupt may end a round
				t.Errorf("jwt: %+v", r)
			}
		case "late":
			lateOK = lateOK || r.Status == "ok"
		case "replaced":
			if r.Seq != nil {
				lastReplacedSeq = *r.Seq
			}
		}
	}
	b, err := os.ReadFile(runs)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "run"); rounds < 4 || n != 1 {
		t.Errorf("%d rounds ran the token command %d times; want one run over 4 or more rounds", rounds, n)
	}
	if !lateOK {
		t.Errorf("the store created after the first round was never read:\n%s", out.String())
	}
	if lastReplacedSeq != 3 {
		t.Errorf("the replaced store's last seq is %d; want 3 (the new database's)", lastReplacedSeq)
	}
}

// TestFleetTimeoutBoundsTheTokenCommand: a store whose token command
// hangs (the shell waits on a sleep that holds its output) is an error
// row after --timeout, not when the sleep ends; the command's children
// are gone with it.
func TestFleetTimeoutBoundsTheTokenCommand(t *testing.T) {
	env := storesEnv(t)
	configFile(t, env, "[stores.hung]\nurl = \"http://127.0.0.1:9\"\ntoken_command = \"sleep 60\"\n", 0o600)
	start := time.Now()
	r := runMain(t, env, "", []string{"fleet", "-o", "json", "--timeout", "1s"})
	took := time.Since(start)
	rows := statusRows(t, r.stdout)
	if r.code != CodeError || rows["hung"].Status != "error" || !strings.Contains(rows["hung"].Error, "no answer within 1s") {
		t.Errorf("exit %d, rows %+v\n%s", r.code, rows, r.stderr)
	}
	if took > 5*time.Second {
		t.Errorf("fleet --timeout 1s took %s", took)
	}
}
