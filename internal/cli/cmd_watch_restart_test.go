package cli_test

import (
	"strings"
	"testing"
	"time"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestWatchSurvivesServerRestart: a watch over sqld
// whose server stops and starts again says so on stderr, retries with
// backoff instead of exiting, and then prints the set and the delete made
// after the restart. Before, it exited at the first failed poll.
func TestWatchSurvivesServerRestart(t *testing.T) {
	srv := sqldtest.StartRestartable(t)
	s := storetest.Open(t, srv.URL(), store.Options{})
	ctx := storetest.Ctx(t)
	if _, err := s.Set(ctx, storetest.Key(t, `["w", "a"]`), []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, "--db", srv.URL(), "watch", `["w"]`, "--interval", "50ms")
	srv.Stop()
	waitErr := func(want string) {
		t.Helper()
		for {
			select {
			case line, ok := <-w.errs:
				if !ok {
					t.Fatalf("the watch ended (stderr closed) before saying %q", want)
				}
				if strings.Contains(line, want) {
					return
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("the watch did not say %q", want)
			}
		}
	}
	waitErr("the store did not answer")
	srv.Start()
	s2 := storetest.Open(t, srv.URL(), store.Options{})
	if _, err := s2.Set(ctx, storetest.Key(t, `["w", "b"]`), []byte(`2`), nil); err != nil {
		t.Fatal(err)
	}
	if err := s2.Delete(ctx, storetest.Key(t, `["w", "a"]`)); err != nil {
		t.Fatal(err)
	}
	waitErr("answers again")
	// Deletions come before sets within a poll, and the delete may be
	// noticed a poll after the set: either order.
	for range 2 {
		l := w.next()
		if l.Change == "delete" {
			l.is(t, "delete", `["w", "a"]`, "1", "")
		} else {
			l.is(t, "set", `["w", "b"]`, "", "2")
		}
	}
	if code := w.interrupt(); code != 130 {
		t.Errorf("exit %d on interrupt", code)
	}
}
