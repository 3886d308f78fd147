package store_test

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// seedScanRows writes n rows ["s", i] (values of about pad random hex
// digits, which no compression of the answer shrinks much; every tenth
// expired at T0) into the store at url, generated on the server.
func seedScanRows(t *testing.T, url string, n, pad int) {
	t.Helper()
	seedRows(t, url, "s", n, fmt.Sprintf("hex(randomblob(%d))", max(pad/2, 1)))
}

// TestScanStoppedEarlyLeavesNothing: fn stops a scan of a large store
// after a few rows: Scan returns fn's error, the page read ahead is
// awaited and its answer closed, and no goroutine is left behind.
func TestScanStoppedEarlyLeavesNothing(t *testing.T) {
	srv := sqldtest.Start(t)
	seedScanRows(t, srv.URL, 20000, 1000)
	s := storetest.Open(t, srv.URL, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	ctx := storetest.Ctx(t)
	opts := store.ListOptions{Prefix: codec.Key{codec.String("s")}, IncludeExpired: true}
	// Warm up (the first request starts the HTTP client's own goroutines).
	if err := s.Scan(ctx, store.ListOptions{Prefix: opts.Prefix, Limit: 1}, func(store.Entry) error { return nil }); err != nil {
		t.Fatal(err)
	}
	store.CloseIdle()
	before := runtime.NumGoroutine()
	stop := errors.New("enough")
	for round := 0; round < 3; round++ {
		n := 0
		err := s.Scan(ctx, opts, func(store.Entry) error {
			if n++; n == 10 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || n != 10 {
			t.Fatalf("Scan returned %v after %d rows, want fn's error after 10", err, n)
		}
	}
	// The 20 MB answers were not read to their end: their connections
	// must be closed, not left busy (an open body keeps two goroutines
	// each).
	deadline := time.Now().Add(30 * time.Second)
	for {
		store.CloseIdle()
		now := runtime.NumGoroutine()
		if now <= before {
			break
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after 3 stopped scans, %d before:\n%s", now, before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The store still reads (the server did not keep a stuck stream).
	var rows int
	if err := s.Scan(ctx, opts, func(store.Entry) error { rows++; return nil }); err != nil || rows != 20000 {
		t.Fatalf("a whole scan after the stopped ones: %d rows, %v", rows, err)
	}
}

// TestScanBrokenOffIsAnError: the server stops in the middle of a scan:
// Scan fails (a dump cut short never looks complete; the page that
// failed was sent once more, which failed too).
func TestScanBrokenOffIsAnError(t *testing.T) {
	srv := sqldtest.Start(t)
	seedScanRows(t, srv.URL, 20000, 2000) // 40 MB: more than every buffer on the way
	s := storetest.Open(t, srv.URL, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	n := 0
	err := s.DumpAll(storetest.CtxTimeout(t, 5*time.Minute), nil, func(store.Entry) error {
		if n++; n == 100 {
			srv.Stop()
		}
		return nil
	})
	t.Logf("after %d rows: %v", n, err)
	if err == nil || n >= 20000 {
		t.Fatalf("after %d of 20000 rows: %v; want an error", n, err)
	}
}

// TestScanSlowReaderIsNoTimeout: the request timeout counts while the
// store waits for the server, not while fn handles the rows: a caller
// that takes longer than the timeout over one row (a `list | less` left
// alone) still reads the whole answer. (It failed with "sent nothing for
// 2s" when the timer ran through fn.)
func TestScanSlowReaderIsNoTimeout(t *testing.T) {
	srv := sqldtest.Start(t)
	seedScanRows(t, srv.URL, 3000, 200) // 1 MB: more than the reader's buffer
	s := storetest.Open(t, srv.URL, store.Options{Clock: storetest.NewClock(storetest.T0).Now, RequestTimeout: 2 * time.Second})
	n := 0
	err := s.DumpAll(storetest.CtxTimeout(t, 5*time.Minute), nil, func(store.Entry) error {
		if n++; n == 1 {
			time.Sleep(4 * time.Second)
		}
		return nil
	})
	if err != nil || n != 3000 {
		t.Fatalf("%d rows, %v; want 3000", n, err)
	}
}

// TestScanClosesItsStream: 300 streamed scans in a row, half of them
// stopped by fn after a row: each closes its server stream. sqld 0.24.32
// keeps a cursor's stream, and a database connection, open until it
// expires otherwise, and answered the 129th scan within the expiry with
// 429 "Timed out while opening database connection".
func TestScanClosesItsStream(t *testing.T) {
	srv := sqldtest.Start(t)
	seedScanRows(t, srv.URL, 50, 10)
	s := storetest.Open(t, srv.URL, store.Options{Clock: storetest.NewClock(storetest.T0).Now})
	stop := errors.New("stop")
	for i := 0; i < 300; i++ {
		err := s.Scan(storetest.Ctx(t), store.ListOptions{Prefix: codec.Key{codec.String("s")}}, func(store.Entry) error {
			if i%2 == 1 {
				return stop
			}
			return nil
		})
		if err != nil && !errors.Is(err, stop) {
			t.Fatalf("scan %d: %v", i+1, err)
		}
	}
}
