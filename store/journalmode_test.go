package store_test

import (
	"bufio"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestSetJournalModeSwitchesAndBack: a reference-made rollback-journal
// file switches to WAL and back, each switch one journaled write with
// its setting (nothing journaled when the file is in that mode already),
// the rows untouched, and a reference-shaped writer commits on it in
// either mode.
func TestSetJournalModeSwitchesAndBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	storetest.SeedRollbackJournal(t, path, 50)
	ctx := storetest.Ctx(t)
	s := storetest.Open(t, path, store.Options{})
	if s.JournalMode() != store.JournalRollback || s.Info().Journal != store.JournalRollback {
		t.Fatalf("journal mode %q, info %q: want rollback", s.JournalMode(), s.Info().Journal)
	}
	k := codec.Key{codec.String("mine")}
	if _, err := s.Set(ctx, k, []byte(`{"a":1}`), nil); err != nil {
		t.Fatal(err)
	}
	before, _, err := s.Get(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	rec := record(t, s)
	for _, step := range []struct {
		to, from store.JournalMode
		pragma   string
	}{{store.JournalWAL, store.JournalRollback, "wal"}, {store.JournalRollback, store.JournalWAL, "delete"}} {
		changed, err := s.SetJournalMode(store.WithWriteOp(ctx, "wal"), step.to)
		if err != nil || !changed {
			t.Fatalf("switch to %s: changed %v, %v", step.to, changed, err)
		}
		w, res := rec.only(t)
		want := store.SettingChange{Name: store.SettingJournalMode, From: string(step.from), To: string(step.to)}
		if w.Kind != "journal-mode" || w.Op != "wal" || w.Setting == nil || *w.Setting != want || len(w.Keys) != 0 ||
			res.Outcome != store.OutcomeApplied || len(res.Before) != 0 || res.Err != nil {
			t.Errorf("journaled %+v (setting %+v), %+v; want the setting %+v applied", w, w.Setting, res, want)
		}
		if got := storetest.JournalMode(t, path); got != step.pragma || s.JournalMode() != step.to {
			t.Errorf("after the switch to %s: the file says %q, the store %q", step.to, got, s.JournalMode())
		}
		if changed, err := s.SetJournalMode(ctx, step.to); err != nil || changed {
			t.Errorf("switch to %s again: changed %v, %v; want nothing done", step.to, changed, err)
		}
		if ws, _ := rec.take(t); len(ws) != 0 {
			t.Errorf("a switch that changed nothing was journaled: %+v", ws)
		}
		w2 := storetest.StartRefWriter(t, path, time.Millisecond, storetest.RefMix(50))
		time.Sleep(50 * time.Millisecond)
		if commits, lost := w2.Close(); commits == 0 || len(lost) > 0 {
			t.Errorf("in %s mode the reference's writer made %d commits, lost %v", step.to, commits, lost)
		}
		after, _, err := s.Get(ctx, k)
		if err != nil || after.Ver != before.Ver || string(after.Value) != string(before.Value) {
			t.Errorf("in %s mode the row reads %+v, %v; before %+v", step.to, after, err, before)
		}
		if _, err := s.Set(ctx, codec.Key{codec.String("mode"), codec.String(string(step.to))}, []byte(`1`), nil); err != nil {
			t.Errorf("kvdeck's write after the switch to %s: %v", step.to, err)
		}
		rec.take(t)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("back in rollback mode the -wal is still there: %v", err)
	}
}

// TestSetJournalModeRefusedBesideAReader: a connection reading the file
// at that instant makes the switch fail at once (it never waits: the
// busy timeout is not spent), journaled as not applied; nothing changed.
func TestSetJournalModeRefusedBesideAReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	storetest.SeedRollbackJournal(t, path, 50)
	ctx := storetest.Ctx(t)
	s := storetest.Open(t, path, store.Options{BusyTimeout: 30 * time.Second})
	rec := record(t, s)
	reader, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	tx, err := reader.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow("SELECT count(*) FROM kv").Scan(&n); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	changed, err := s.SetJournalMode(ctx, store.JournalWAL)
	took := time.Since(start)
	if changed || !errors.Is(err, store.ErrLocked) || !strings.Contains(err.Error(), "tried once without waiting") {
		t.Errorf("switch beside a reader: changed %v, %v; want ErrLocked saying it did not wait", changed, err)
	}
	if took > 10*time.Second {
		t.Errorf("the refused switch took %s: it waited", took)
	}
	if _, res := rec.only(t); res.Outcome != store.OutcomeNotApplied {
		t.Errorf("journaled outcome %s, want not applied", res.Outcome)
	}
	tx.Rollback()
	if got := storetest.JournalMode(t, path); got != "delete" || s.JournalMode() != store.JournalRollback {
		t.Errorf("after the refusal the file says %q, the store %q", got, s.JournalMode())
	}
	if changed, err := s.SetJournalMode(ctx, store.JournalWAL); err != nil || !changed {
		t.Errorf("switch once the reader ended: changed %v, %v", changed, err)
	}
}

// holderProcess is another program with the file open and idle, as a
// service between requests: one connection (busy timeout 0) that read
// once. It says "ready" and holds the file until its stdin closes.
func holderProcess() int {
	db, err := sql.Open("sqlite", "file:"+strings.TrimPrefix(os.Getenv("KVDECK_TEST_URL"), "file:")+"?_pragma=busy_timeout(0)")
	if err == nil {
		db.SetMaxOpenConns(1)
		var n int
		err = db.QueryRow("SELECT count(*) FROM kv").Scan(&n)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	bufio.NewReader(os.Stdin).ReadString('\n')
	db.Close()
	return 0
}

// TestSetJournalModeRefusedWhileAnotherProcessHasTheFile: another
// process with the file open, though idle (no lock held), refuses the
// switch, naming it; nothing is journaled, nothing changes. Once it
// closed the file, the switch is made.
func TestSetJournalModeRefusedWhileAnotherProcessHasTheFile(t *testing.T) {
	if !store.SeesOpeners() {
		t.Skip("kvdeck cannot see other processes' open files here")
	}
	path := filepath.Join(t.TempDir(), "kv.db")
	storetest.SeedRollbackJournal(t, path, 50)
	ctx := storetest.Ctx(t)
	s := storetest.Open(t, path, store.Options{})
	rec := record(t, s)
	cmd := childProcess(t, "holder", "file:"+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("holder: %q, %v", line, err)
	}
	changed, err := s.SetJournalMode(ctx, store.JournalWAL)
	if changed || !errors.Is(err, store.ErrLocked) || !strings.Contains(err.Error(), "process "+strconv.Itoa(cmd.Process.Pid)) ||
		!strings.Contains(err.Error(), "stop them, switch") {
		t.Errorf("switch while process %d has the file: changed %v, %v", cmd.Process.Pid, changed, err)
	}
	if err := s.CheckJournalSwitch(); !errors.Is(err, store.ErrLocked) {
		t.Errorf("CheckJournalSwitch: %v, want the same refusal", err)
	}
	if ws, _ := rec.take(t); len(ws) != 0 {
		t.Errorf("a refused switch was journaled: %+v", ws)
	}
	if got := storetest.JournalMode(t, path); got != "delete" {
		t.Errorf("after the refusal the file says %q", got)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if changed, err := s.SetJournalMode(ctx, store.JournalWAL); err != nil || !changed {
		t.Errorf("switch once the other process ended: changed %v, %v", changed, err)
	}
}

// TestSetJournalModeRefusedOnServerAndReadOnly: a server's database
// (its files are the server's) and a read-only store are refused before
// anything is sent or journaled.
func TestSetJournalModeRefusedOnServerAndReadOnly(t *testing.T) {
	storetest.Each(t, []storetest.Backend{storetest.SQLD().Named("http"), storetest.SQLDWS()}, func(t *testing.T, b storetest.Backend) {
		s := storetest.Open(t, b.URL(t), store.Options{})
		rec := record(t, s)
		if s.JournalMode() != "" || s.JournalAdvice() != "" {
			t.Errorf("a server's database has journal mode %q, advice %q", s.JournalMode(), s.JournalAdvice())
		}
		changed, err := s.SetJournalMode(storetest.Ctx(t), store.JournalWAL)
		if changed || !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), "the server owns its files") {
			t.Errorf("switch on a server: changed %v, %v", changed, err)
		}
		if ws, _ := rec.take(t); len(ws) != 0 {
			t.Errorf("journaled: %+v", ws)
		}
	})
	t.Run("read-only", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "kv.db")
		storetest.SeedRollbackJournal(t, path, 5)
		s := storetest.Open(t, path, store.Options{ReadOnly: true})
		changed, err := s.SetJournalMode(storetest.Ctx(t), store.JournalWAL)
		if changed || !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("switch on a read-only store: changed %v, %v", changed, err)
		}
		if got := storetest.JournalMode(t, path); got != "delete" {
			t.Errorf("the file says %q", got)
		}
	})
}

// TestJournalAdvice: a rollback-journal file gets the advice (the cost,
// what WAL changes, the command with the absolute path), stronger where
// kvdeck cannot read it without locks; a WAL file none.
func TestJournalAdvice(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "it's.db")
	storetest.SeedRollbackJournal(t, path, 5)
	s := storetest.Open(t, path, store.Options{})
	a := s.JournalAdvice()
	for _, want := range []string{"rollback-journal mode", "busy timeout", "never block each other", "-wal and -shm", "this host",
		"`kvdeck wal --db 'file:" + dir + "/it'\\''s.db'`", "kvdeck undo"} {
		if !strings.Contains(a, want) {
			t.Errorf("advice %q does not say %q", a, want)
		}
	}
	if strings.Contains(a, "kvdeck cannot read") {
		t.Errorf("advice on a watched file says kvdeck cannot read it without locks: %q", a)
	}
	store.BlindLockFree(s, "its file system (nfs) may not report writes made on another machine")
	if a := s.JournalAdvice(); !strings.HasPrefix(a, "kvdeck cannot read this file without SQLite's read lock here either (its file system (nfs)") {
		t.Errorf("advice where kvdeck is blind: %q", a)
	}
	wal := storetest.Open(t, filepath.Join(dir, "wal.db"), store.Options{Create: true})
	if wal.JournalMode() != store.JournalWAL || wal.JournalAdvice() != "" {
		t.Errorf("a WAL file: mode %q, advice %q", wal.JournalMode(), wal.JournalAdvice())
	}
}

// heldReads is a reader of another program that holds each read open:
// one connection (busy timeout 0) that begins a transaction, counts the
// rows, keeps the transaction for hold, ends it, and starts again.
type heldReads struct {
	mu           sync.Mutex // held for each read: pause takes it
	stop         atomic.Bool
	done         chan struct{}
	reads, fails atomic.Int64
}

func startHeldReads(t *testing.T, path string, hold time.Duration) *heldReads {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	r := &heldReads{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for !r.stop.Load() {
			r.mu.Lock()
			tx, err := db.Begin()
			if err == nil {
				var n int
				if err = tx.QueryRow("SELECT count(*) FROM kv").Scan(&n); err == nil {
					time.Sleep(hold)
				}
				tx.Rollback()
			}
			r.mu.Unlock()
			if r.reads.Add(1); err != nil {
				r.fails.Add(1)
			}
			time.Sleep(hold / 4)
		}
	}()
	t.Cleanup(func() { r.stop.Store(true); <-r.done; db.Close() })
	return r
}

// TestWALKeepsEveryCommitBesideAReader: on one file, a reference-shaped
// writer (busy timeout 0) beside a reader that holds its reads open
// loses commits while the file is in rollback-journal mode, and none
// once it is switched to WAL (the same reader's connection, never
// reopened, follows the switch). The figures are docs/stores.md's.
func TestWALKeepsEveryCommitBesideAReader(t *testing.T) {
	rows, period, hold, phase := 2_000, 5*time.Millisecond, 3*time.Millisecond, 2*time.Second
	if raceOn {
		period, hold = 20*time.Millisecond, 12*time.Millisecond
	}
	path := filepath.Join(t.TempDir(), "kv.db")
	storetest.SeedRollbackJournal(t, path, rows)
	s := storetest.Open(t, path, store.Options{})
	r := startHeldReads(t, path, hold)
	measure := func(mode string) (commits int, lost []string) {
		reads, fails := r.reads.Load(), r.fails.Load()
		w := storetest.StartRefWriter(t, path, period, storetest.RefMix(rows))
		time.Sleep(phase)
		commits, lost = w.Stop()
		reads, fails = r.reads.Load()-reads, r.fails.Load()-fails
		t.Logf("%s: the writer (a commit every %s) made %d commits, lost %d (%.0f%%), beside %d reads held %s each (%d failed)",
			mode, period, commits, len(lost), 100*float64(len(lost))/float64(max(commits, 1)), reads, hold, fails)
		if commits < 20 || reads < 20 {
			t.Errorf("%s: %d commits, %d reads: the test saw no contention", mode, commits, reads)
		}
		return commits, lost
	}
	if _, lost := measure("rollback journal"); len(lost) == 0 || !storetest.Busy(lost) {
		t.Errorf("rollback journal: lost %v; want commits lost to the reader's lock, and only to it", lost)
	}
	r.mu.Lock() // between two reads: the switch needs the file idle
	changed, err := s.SetJournalMode(storetest.Ctx(t), store.JournalWAL)
	r.mu.Unlock()
	if err != nil || !changed {
		t.Fatalf("switch to WAL: changed %v, %v", changed, err)
	}
	if _, lost := measure("WAL"); len(lost) > 0 {
		t.Errorf("WAL: %d commits lost: %v", len(lost), lost[0])
	}
}
