package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"kvdeck/internal/history"
	"kvdeck/internal/storetest"
	"kvdeck/internal/testskip"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
)

// litestreamBin is the litestream binary the tests run:
// $KVDECK_LITESTREAM, else .cache/litestream/litestream (where
// scripts/test builds it) above the working directory. Without one the
// test skips and says so (fails under CI); with -short (scripts/test
// quick) it skips.
func litestreamBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		testskip.Skip(t, "-short (scripts/test quick) runs no litestream")
	}
	if bin := os.Getenv(history.LitestreamEnv); bin != "" {
		return bin
	}
	dir, err := os.Getwd()
	for err == nil {
		candidate := filepath.Join(dir, ".cache", "litestream", "litestream")
		if st, serr := os.Stat(candidate); serr == nil && !st.IsDir() {
			return candidate
		}
		if parent := filepath.Dir(dir); parent != dir {
			dir = parent
			continue
		}
		break
	}
	msg := "no litestream: set " + history.LitestreamEnv + " or run scripts/test, which builds it into .cache/litestream"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	testskip.Skip(t, msg)
	return ""
}

// replicated is a store file replicated by a real Litestream to a folder.
type replicated struct {
	path, replica string
	cmd           *exec.Cmd
}

// startLitestream creates a store at dir/s.db (WAL, as kvdeck creates
// one) and runs `litestream replicate` on it into dir/replica, syncing
// every 100 ms; it is stopped when the test ends.
func startLitestream(t *testing.T, bin, dir string) *replicated {
	t.Helper()
	r := &replicated{path: filepath.Join(dir, "s.db"), replica: filepath.Join(dir, "replica")}
	s := storetest.Open(t, "file:"+r.path, store.Options{Create: true})
	s.Close()
	cfg := filepath.Join(dir, "litestream.yml")
	yml := fmt.Sprintf("dbs:\n  - path: %s\n    monitor-interval: 50ms\n    replica:\n      url: file://%s\n      sync-interval: 100ms\n", r.path, r.replica)
	if err := os.WriteFile(cfg, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "litestream.log"))
	if err != nil {
		t.Fatal(err)
	}
	r.cmd = exec.Command(bin, "replicate", "-config", cfg)
	r.cmd.Stdout, r.cmd.Stderr = log, log
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.stop(); log.Close() })
	return r
}

// stop ends litestream (SIGTERM: it syncs what it has and exits).
func (r *replicated) stop() {
	if r.cmd.ProcessState != nil || r.cmd.Process == nil {
		return
	}
	r.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { r.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		r.cmd.Process.Kill()
		<-done
	}
}

// refDB opens the store file as the reference-shaped writer does
// (storetest.RefWriter: its own connection, no busy timeout).
func refDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// refCommit commits op, again while Litestream's checkpoint holds the
// lock (the reference's writer would lose that commit; the test wants
// every commit it planned).
func refCommit(t *testing.T, db *sql.DB, op storetest.RefOp) {
	t.Helper()
	for try := 0; ; try++ {
		err := storetest.RefCommit(db, op)
		if err == nil {
			return
		}
		if !storetest.Busy([]string{err.Error()}) || try > 200 {
			t.Fatalf("commit: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// pointsOf is `kvdeck history -o json` of the store: its points.
func pointsOf(t *testing.T, env map[string]string, args ...string) []historyPoint {
	t.Helper()
	r := runMain(t, env, "", append(args, "history", "-o", "json"))
	if r.code != 0 {
		t.Fatalf("history: exit %d: %s", r.code, r.stderr)
	}
	var out []historyPoint
	for _, line := range lines(r.stdout) {
		var p historyPoint
		if strings.Contains(line, `"source"`) {
			continue
		}
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		out = append(out, p)
	}
	return out
}

// TestAtEveryLitestreamPoint: a real Litestream replicates a store to a
// folder while a reference-shaped writer commits (storetest.RefMix);
// after every commit the test keeps the store's dump. Every restore
// point kvdeck lists must open (--at txid:N) to exactly one of those
// dumps, in commit order, and --at TIME must pick the newest point made
// at or before TIME; the restores leave nothing behind.
func TestAtEveryLitestreamPoint(t *testing.T) {
	bin := litestreamBin(t)
	dir := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the restores' private directories
	r := startLitestream(t, bin, dir)
	env := map[string]string{history.LitestreamEnv: bin, "XDG_STATE_HOME": t.TempDir()}
	base := []string{"--db", "file:" + r.path, "--replica", r.replica}
	dump := func(args ...string) string {
		t.Helper()
		res := runMain(t, env, "", append(args, "dump"))
		if res.code != 0 {
			t.Fatalf("dump %v: exit %d: %s", args, res.code, res.stderr)
		}
		return res.stdout
	}

	const rows = 40
	db := refDB(t, r.path)
	dumps := []string{dump("--db", "file:"+r.path, "--read-only")} // the empty store
	commit := func(op storetest.RefOp) {
		refCommit(t, db, op)
		dumps = append(dumps, dump("--db", "file:"+r.path, "--read-only"))
	}
	for i := 1; i <= rows; i++ { // the seed: one set a commit
		commit(storetest.RefOp{Set: [][]byte{storetest.BulkRaw(i)}, Value: fmt.Sprintf(`{"seed":%d}`, i)})
	}
	mix := storetest.RefMix(rows)
	for i := range 60 {
		commit(mix(i))
		time.Sleep(40 * time.Millisecond)
	}
	final := dumps[len(dumps)-1]
	// Litestream syncs every 100 ms: wait for the last commit's point.
	deadline := time.Now().Add(20 * time.Second)
	for {
		pts := pointsOf(t, env, base...)
		if len(pts) > 0 && dump(append(base, "--at", "txid:"+strconv.FormatUint(pts[len(pts)-1].TXID, 10))...) == final {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("litestream did not sync the last commit within 20 s (%d points)", len(pts))
		}
		time.Sleep(200 * time.Millisecond)
	}
	r.stop()

	points := pointsOf(t, env, base...)
	if len(points) < 10 {
		t.Fatalf("only %d restore points for 100 commits at 100 ms syncs", len(points))
	}
	at := 0 // the index of the dump the last point matched
	distinct := map[int]bool{}
	for _, p := range points {
		got := dump(append(base, "--at", "txid:"+strconv.FormatUint(p.TXID, 10))...)
		j := at
		for j < len(dumps) && dumps[j] != got {
			j++
		}
		if j == len(dumps) {
			t.Fatalf("txid %d (%s) opens to a state that is no dump from dump %d on:\n%s", p.TXID, p.Time, at, got)
		}
		at = j
		distinct[j] = true
	}
	if len(distinct) < 10 {
		t.Fatalf("the points matched only %d distinct states", len(distinct))
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Fatalf("the restores left %v in TMPDIR", ents)
	}

	// --at TIME: the newest point made at or before it (to the second);
	// the clock is fixed at the time asked.
	mid := points[len(points)/2]
	want := mid
	for _, p := range points {
		if p.At <= mid.At {
			want = p
		}
	}
	stamp := time.UnixMilli(mid.At).UTC().Format(time.RFC3339)
	res := runMain(t, env, "", append(base, "--at", stamp, "dump"))
	if res.code != 0 || res.stdout != dump(append(base, "--at", "txid:"+strconv.FormatUint(want.TXID, 10))...) {
		t.Fatalf("--at %s: exit %d, not the state of txid %d: %s", stamp, res.code, want.TXID, res.stderr)
	}
	if !strings.Contains(res.stderr, fmt.Sprintf("txid %d, made %s", want.TXID, timeText(mid.At))) || !strings.Contains(res.stderr, "Litestream replica file://"+r.replica) {
		t.Fatalf("--at says no point and source: %s", res.stderr)
	}
	// A write under --at is refused before anything is opened.
	res = runMain(t, env, "", append(base, "--at", stamp, "set", `["x"]`, "1"))
	if res.code == 0 || !strings.Contains(res.stderr, "--at opens the store as it was, read-only") {
		t.Fatalf("set under --at: exit %d: %s", res.code, res.stderr)
	}
}

// TestHistoryOfAKeyLitestream: a key set, replaced and deleted among
// other commits is found at each change with the point's stamp and
// value, restoring fewer points than there are; put-back under --at
// writes the old value back, checked and undoable.
func TestHistoryOfAKeyLitestream(t *testing.T) {
	bin := litestreamBin(t)
	dir := t.TempDir()
	t.Setenv("TMPDIR", t.TempDir())
	r := startLitestream(t, bin, dir)
	env := map[string]string{history.LitestreamEnv: bin, "XDG_STATE_HOME": t.TempDir()}
	base := []string{"--db", "file:" + r.path, "--replica", r.replica}
	db := refDB(t, r.path)
	lease := []byte{0x02, 'l', 'e', 'a', 's', 'e', 0x00} // ["lease"]
	other := func(i int) storetest.RefOp {
		return storetest.RefOp{Set: [][]byte{storetest.BulkRaw(i)}, Value: fmt.Sprintf(`{"n":%d}`, i)}
	}
	step := func(op storetest.RefOp) {
		refCommit(t, db, op)
		time.Sleep(150 * time.Millisecond) // a sync between commits
	}
	for i := range 8 {
		step(other(i))
	}
	step(storetest.RefOp{Set: [][]byte{lease}, Value: `{"holder":"a"}`})
	for i := range 8 {
		step(other(100 + i))
	}
	step(storetest.RefOp{Set: [][]byte{lease}, Value: `{"holder":"b"}`})
	for i := range 8 {
		step(other(200 + i))
	}
	step(storetest.RefOp{Delete: [][]byte{lease}, Set: [][]byte{storetest.BulkRaw(300)}, Value: `{"n":300}`})
	for i := range 8 {
		step(other(400 + i))
	}
	time.Sleep(500 * time.Millisecond)
	r.stop()

	res := runMain(t, env, "", append(base, "history", `["lease"]`, "--paths"))
	if res.code != 0 {
		t.Fatalf("history: %d %s", res.code, res.stderr)
	}
	out := lines(res.stdout)
	var states []string
	for _, l := range out {
		if strings.HasPrefix(l, "txid ") {
			states = append(states, l)
		}
	}
	if len(states) != 4 || !strings.Contains(states[0], "no row") || !strings.Contains(states[1], `{"holder":"a"}`) ||
		!strings.Contains(states[2], `{"holder":"b"}`) || !strings.Contains(states[3], "no row") {
		t.Fatalf("history:\n%s", res.stdout)
	}
	if !strings.Contains(res.stdout, `~ .holder  "a"  ->  "b"`) {
		t.Fatalf("--paths shows no path diff:\n%s", res.stdout)
	}
	summary := out[len(out)-1]
	var read, of int
	if _, err := fmt.Sscanf(summary[strings.Index(summary, "; ")+2:], "%d of %d points restored", &read, &of); err != nil || read >= of {
		t.Fatalf("summary %q: read %d of %d (%v)", summary, read, of, err)
	}

	// put-back: the lease as it was when b held it, at that point's txid.
	txid := strings.Fields(states[2])[1]
	live := []string{"--db", "file:" + r.path}
	res = runMain(t, env, "", append(base, "--at", "txid:"+txid, "put-back", `["lease"]`, "--yes"))
	if res.code != 0 || !strings.Contains(res.stdout, "put back 1 key as at txid "+txid) {
		t.Fatalf("put-back: %d %s %s", res.code, res.stdout, res.stderr)
	}
	got := runMain(t, env, "", append(live, "get", `["lease"]`, "-o", "json"))
	if !strings.Contains(got.stdout, `"holder":"b"`) {
		t.Fatalf("after put-back: %s", got.stdout)
	}
	if res := runMain(t, env, "", append(live, "undo", "--yes")); res.code != 0 {
		t.Fatalf("undo: %s", res.stderr)
	}
	if got := runMain(t, env, "", append(live, "get", `["lease"]`)); got.code != 1 {
		t.Fatalf("after the undo the lease is there: %s", got.stdout)
	}
}

// TestTUITimeMachineLitestream: the TUI's time machine (its :at and H)
// reads the Litestream replica of the store it was started on: a point
// picked by txid opens read-only as it was, and goes when closed; a
// key's history restores fewer points than there are and finds its four
// states; what the TUI restored is gone when it ends.
func TestTUITimeMachineLitestream(t *testing.T) {
	bin := litestreamBin(t)
	dir := t.TempDir()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	r := startLitestream(t, bin, dir)
	env := map[string]string{history.LitestreamEnv: bin, "XDG_STATE_HOME": t.TempDir()}
	db := refDB(t, r.path)
	lease := []byte{0x02, 'l', 'e', 'a', 's', 'e', 0x00} // ["lease"]
	step := func(op storetest.RefOp) {
		refCommit(t, db, op)
		time.Sleep(150 * time.Millisecond) // a sync between commits
	}
	others := func(from int) {
		for i := range 4 {
			step(storetest.RefOp{Set: [][]byte{storetest.BulkRaw(from + i)}, Value: fmt.Sprintf(`{"n":%d}`, from+i)})
		}
	}
	others(0)
	step(storetest.RefOp{Set: [][]byte{lease}, Value: `{"holder":"a"}`})
	others(100)
	step(storetest.RefOp{Set: [][]byte{lease}, Value: `{"holder":"b"}`})
	others(200)
	step(storetest.RefOp{Delete: [][]byte{lease}, Set: [][]byte{storetest.BulkRaw(300)}, Value: `{"n":300}`})
	others(400)
	time.Sleep(500 * time.Millisecond)
	r.stop()

	tui := WithTUI(func(ctx context.Context, s *store.Store, cfg tuiconfig.Config) error {
		if cfg.TimeMachine == nil {
			return errors.New("no time machine")
		}
		m, err := cfg.TimeMachine(ctx)
		if err != nil {
			return err
		}
		if m.Source.Kind() != history.KindLitestream {
			return fmt.Errorf("source %s", m.Source.Describe())
		}
		points, err := m.Source.Points(ctx)
		if err != nil {
			return err
		}
		res, restored, err := m.KeyChanges(ctx, points, lease, 64)
		if err != nil {
			return err
		}
		if len(res.Changes) != 4 || !restored || res.Reads >= res.Of || res.Changes[1].Row == nil || string(res.Changes[1].Row.Value) != `{"holder":"a"}` {
			return fmt.Errorf("history: %d changes, %d of %d read", len(res.Changes), res.Reads, res.Of)
		}
		p, err := m.At(ctx, fmt.Sprintf("txid:%d", res.Changes[1].Point.TXID), storetest.T0)
		if err != nil {
			return err
		}
		e, ok, err := p.Store.GetRaw(ctx, lease)
		if err != nil || !ok || string(e.Value) != `{"holder":"a"}` || !p.Store.Info().ReadOnly {
			return fmt.Errorf("at the point: %q %v %w", e.Value, ok, err)
		}
		if err := p.Close(ctx); err != nil {
			return err
		}
		if files, _ := filepath.Glob(filepath.Join(tmp, "kvdeck-at-*", "*", "*.db")); len(files) != 0 {
			return fmt.Errorf("a closed point stays: %v", files)
		}
		return nil
	})
	res := runMain(t, env, "", []string{"--db", "file:" + r.path, "--replica", r.replica}, tui)
	if res.code != 0 {
		t.Fatalf("TUI: exit %d: %s", res.code, res.stderr)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("restores stay after the TUI: %v", left)
	}
}
