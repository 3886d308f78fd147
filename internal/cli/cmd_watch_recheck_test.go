package cli

import (
	"context"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestWatchRechecksInTurn: a watch re-reads a bounded batch of the rows
// it saw per poll, in turn (64 on a file, 500 over a server), in the one
// statement that reads the feed: a delete anywhere in a prefix larger
// than a batch is noticed within rows/batch polls, and over HTTP every
// poll stays one request of bounded size. Failed before: a watch of more
// than 500 rows over HTTP re-read every row it saw in a second request
// (unbounded: "Response is too large" at 100k rows), and on a file after
// every commit.
func TestWatchRechecksInTurn(t *testing.T) {
	srv := sqldtest.Start(t)
	proxy := sqldtest.StartProxy(t, srv.URL, 0)
	for _, tc := range []struct {
		name, url string
		rows      int
		batch     int
	}{
		{"file", storetest.File().URL(t), 300, watchRecheckFile},
		{"http", proxy.URL, 1200, watchRecheckRemote},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := storetest.NewClock(storetest.T0)
			s := storetest.Open(t, tc.url, store.Options{Clock: c.Now, Create: true})
			ctx := context.Background()
			a := s.Atomic()
			for i := range tc.rows {
				a.Set(codec.Key{codec.String("big"), codec.Number(float64(i))}, []byte(`1`))
			}
			if _, err := a.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			w := startTestWatcher(ctx, t, s, []codec.Key{{codec.String("big")}})
			// The last row in key order and a row in the middle go.
			for _, i := range []int{tc.rows - 1, tc.rows / 2} {
				if err := s.Delete(ctx, codec.Key{codec.String("big"), codec.Number(float64(i))}); err != nil {
					t.Fatal(err)
				}
			}
			deleted := 0
			polls := (tc.rows + tc.batch - 1) / tc.batch
			for range polls {
				var events []watchEvent
				var err error
				read := s.Counters().RowsRead
				n := proxy.Count(func() { events, err = w.poll(ctx, c.Now()) })
				if err != nil {
					t.Fatal(err)
				}
				if got := s.Counters().RowsRead - read; got > int64(tc.batch+2) {
					t.Errorf("a poll read %d rows, want at most the batch (%d), a head and a header", got, tc.batch)
				}
				if tc.name == "http" && n != 1 {
					t.Errorf("a poll took %d requests, want 1", n)
				}
				for _, ev := range events {
					if ev.Change == "delete" {
						deleted++
					}
				}
				time.Sleep(time.Millisecond)
			}
			if deleted != 2 {
				t.Errorf("%d deletes seen in %d polls of %d rows, want 2", deleted, polls, tc.rows)
			}
		})
	}
}
