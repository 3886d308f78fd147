package store_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// increment adds one to the JSON counter {"n": int} at k with read / check /
// set, retrying on conflict. It returns the stamp of the successful commit.
func increment(ctx context.Context, s *store.Store, k codec.Key) (string, error) {
	for {
		e, found, err := s.Get(ctx, k)
		if err != nil {
			return "", err
		}
		var c struct{ N int }
		stamp := ""
		if found {
			if err := json.Unmarshal(e.Value, &c); err != nil {
				return "", err
			}
			stamp = e.Versionstamp()
		}
		res, err := s.Atomic().Check(k, stamp).Set(k, []byte(fmt.Sprintf(`{"n":%d}`, c.N+1))).Commit(ctx)
		if err != nil {
			return "", err
		}
		if res.OK {
			return res.Versionstamp, nil
		}
	}
}

func counterValue(t *testing.T, s *store.Store, k codec.Key) int {
	t.Helper()
	e, found, err := s.Get(storetest.Ctx(t), k)
	if err != nil || !found {
		t.Fatalf("counter: found=%v err=%v", found, err)
	}
	var c struct{ N int }
	if err := json.Unmarshal(e.Value, &c); err != nil {
		t.Fatal(err)
	}
	return c.N
}

// TestConcurrentCAS: 8 goroutines incrementing one key lose no update, and
// every successful commit has its own, strictly increasing stamp. (Over
// WebSocket it once failed in CI with a commit unanswered for 20 s: the
// client had lost the answer to the stream's close, which the server sent
// before the batch's; TestWebSocketAnswersInAnyOrder.)
func TestConcurrentCAS(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		s := storetest.Open(t, b.URL(t), store.Options{})
		k := storetest.Key(t, `["counter"]`)
		const workers, each = 8, 12
		var mu sync.Mutex
		var stamps []string
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				last := ""
				for i := 0; i < each; i++ {
					stamp, err := increment(storetest.Ctx(t), s, k)
					if err != nil {
						errs <- err
						return
					}
					if stamp <= last {
						errs <- fmt.Errorf("stamp went back: %s after %s", stamp, last)
						return
					}
					last = stamp
					mu.Lock()
					stamps = append(stamps, stamp)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if n := counterValue(t, s, k); n != workers*each {
			t.Fatalf("counter = %d, want %d: lost updates", n, workers*each)
		}
		sort.Strings(stamps)
		for i := 1; i < len(stamps); i++ {
			if stamps[i] == stamps[i-1] {
				t.Fatalf("stamp %s issued twice", stamps[i])
			}
		}
	})
}

// The helper process: when KVDECK_TEST_ROLE is set, the test binary acts as
// a separate writer process instead of running tests.
func TestMain(m *testing.M) {
	switch os.Getenv("KVDECK_TEST_ROLE") {
	case "":
		os.Exit(m.Run())
	case "cas":
		os.Exit(casProcess())
	case "writer":
		os.Exit(writerProcess())
	case "opener":
		os.Exit(openerProcess())
	case "holder":
		os.Exit(holderProcess())
	default:
		fmt.Fprintln(os.Stderr, "unknown KVDECK_TEST_ROLE")
		os.Exit(2)
	}
}

func casProcess() int {
	n, _ := strconv.Atoi(os.Getenv("KVDECK_TEST_N"))
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := store.Open(c, os.Getenv("KVDECK_TEST_URL"), store.Options{Create: true, Force: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	for i := 0; i < n; i++ {
		if _, err := increment(c, s, codec.Key{codec.String("counter")}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// openerProcess opens (creating it if need be) the store and sets one key.
func openerProcess() int {
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := store.Open(c, os.Getenv("KVDECK_TEST_URL"), store.Options{Create: true, Force: true})
	if err == nil {
		_, err = s.Set(c, codec.Key{codec.String("opener"), codec.Number(float64(os.Getpid()))}, []byte(`1`), nil)
		s.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestProcessesCreateOneFile: processes that create the same new file at
// the same moment all succeed (the losers of the race to switch it to WAL
// and create the schema wait instead of failing with "database is locked").
func TestProcessesCreateOneFile(t *testing.T) {
	for round := 0; round < 4; round++ {
		path := filepath.Join(t.TempDir(), "kv.db")
		var cmds []*exec.Cmd
		for i := 0; i < 4; i++ {
			cmd := childProcess(t, "opener", path)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, cmd)
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("round %d, process %d: %v", round, i, err)
			}
		}
		s := storetest.Open(t, path, store.Options{})
		if st, err := s.Stats(storetest.Ctx(t), 0); err != nil || st.Rows != 4 || st.JournalMode != "wal" {
			t.Fatalf("round %d: %+v %v", round, st, err)
		}
	}
}

// writerProcess commits forever: each commit sets five keys to the same
// sequence number, so a torn commit would show as keys that disagree.
func writerProcess() int { //nolint:unparam // an exit code, as casProcess and openerProcess return: TestMain's roles read alike
	c := context.Background()
	s, err := store.Open(c, os.Getenv("KVDECK_TEST_URL"), store.Options{Create: true, Force: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	for i := 1; ; i++ {
		a := s.Atomic()
		for j := 0; j < 5; j++ {
			a.Set(codec.Key{codec.String("torn"), codec.Number(float64(j))}, []byte(strconv.Itoa(i)))
		}
		a.Set(codec.Key{codec.String("pad"), codec.Number(float64(i % 200))}, []byte(`"`+strings.Repeat("x", 2000)+`"`))
		if _, err := a.Commit(c); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
}

func childProcess(t *testing.T, role, url string, extra ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "KVDECK_TEST_ROLE="+role, "KVDECK_TEST_URL="+url)
	cmd.Env = append(cmd.Env, extra...)
	cmd.Stderr = os.Stderr
	return cmd
}

// TestTwoProcessesCAS: two OS processes incrementing one counter on one
// embedded file and on one sqld lose no update.
func TestTwoProcessesCAS(t *testing.T) {
	storetest.Each(t, []storetest.Backend{storetest.File(), storetest.SQLD().Named("http")}, func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{})
		const each = 30
		var cmds []*exec.Cmd
		for i := 0; i < 2; i++ {
			cmd := childProcess(t, "cas", url, "KVDECK_TEST_N="+strconv.Itoa(each))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds = append(cmds, cmd)
		}
		for _, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("child: %v", err)
			}
		}
		if n := counterValue(t, s, storetest.Key(t, `["counter"]`)); n != 2*each {
			t.Fatalf("counter = %d, want %d", n, 2*each)
		}
	})
}

// TestKilledWriterLeavesWholeCommits kills a writer with SIGKILL while it
// commits: the file passes integrity_check and every commit is whole.
func TestKilledWriterLeavesWholeCommits(t *testing.T) {
	for _, mode := range []string{"wal", "delete"} {
		t.Run(mode, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "kv.db")
			if mode == "delete" {
				// A database created by someone else in rollback-journal mode.
				storetest.Exec(t, path, "CREATE TABLE t (x)")
			}
			cmd := childProcess(t, "writer", path)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 6)
			if _, err := out.Read(buf); err != nil {
				t.Fatalf("writer did not start: %v", err)
			}
			time.Sleep(400 * time.Millisecond)
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("writer ended on its own: %v", err)
			}
			db, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var check string
			if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
				t.Fatalf("integrity_check = %q, %v", check, err)
			}
			s := storetest.Open(t, path, store.Options{})
			var values []string
			var stamps []string
			if err := s.Scan(storetest.Ctx(t), store.ListOptions{Prefix: storetest.Key(t, `["torn"]`)}, func(e store.Entry) error {
				values = append(values, string(e.Value))
				stamps = append(stamps, e.Versionstamp())
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(values) != 5 {
				t.Fatalf("%d torn keys, want 5 (did the writer commit at all?)", len(values))
			}
			for i := range values {
				if values[i] != values[0] || stamps[i] != stamps[0] {
					t.Fatalf("torn commit: values %v stamps %v", values, stamps)
				}
			}
			t.Logf("writer reached commit %s before the kill", values[0])
		})
	}
}
