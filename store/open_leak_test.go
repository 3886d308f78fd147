package store_test

import (
	"runtime"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// settledGoroutines is the goroutine count once the background work of
// closed stores (stream closes, idle connections) has ended, read until it
// stops falling.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for range 50 {
		time.Sleep(20 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m >= n {
			return m
		}
		n = m
	}
	return n
}

// TestOpenCloseLeaksNothing: opening and closing a store 1,000 times (to
// write, read-only, and read-only unchecked as the fleet does) leaves the
// goroutine count where it was. libsql-client-go's connector of a file:
// URL opens a *sql.DB to take its driver and never closes it (a
// connectionOpener goroutine each): once per Open, `kvdeck fleet -w` over
// 50 file stores grew by thousands of goroutines in minutes.
func TestOpenCloseLeaksNothing(t *testing.T) {
	storetest.Each(t, storetest.FileHTTPWS(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		storetest.Open(t, url, store.Options{}).Close() // the store exists
		rounds := 1000
		if b.Name != "file" {
			rounds = 300 // a request each (the schema check); enough to see a leak
		}
		variants := []store.Options{{}, {ReadOnly: true}, {ReadOnly: true, Unchecked: true}}
		open := func(i int) {
			ctx := storetest.Ctx(t)
			s, err := store.Open(ctx, url, variants[i%len(variants)])
			if err != nil {
				t.Fatalf("open %d: %v", i, err)
			}
			if _, err := s.Seq(ctx); err != nil {
				t.Fatalf("seq %d: %v", i, err)
			}
			// Close's error is not what this test checks (over WebSocket
			// libsql-client-go reports the server's close of the socket).
			_ = s.Close()
		}
		for i := range len(variants) {
			open(i) // what is built once per process is built now
		}
		before := settledGoroutines()
		for i := range rounds {
			open(i)
		}
		after := settledGoroutines()
		if after > before+10 {
			t.Errorf("%d goroutines before %d opens and closes, %d after", before, rounds, after)
		}
	})
}
