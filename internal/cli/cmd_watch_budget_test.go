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

// TestWatchPollRequests: behind the latency proxy a poll of a watch is one
// request over HTTP, idle or not, deletions included.
func TestWatchPollRequests(t *testing.T) {
	srv := sqldtest.Start(t)
	proxy := sqldtest.StartProxy(t, srv.URL, 50*time.Millisecond)
	c := storetest.NewClock(storetest.T0)
	s := storetest.Open(t, proxy.URL, store.Options{Clock: c.Now})
	ctx := storetest.Ctx(t)
	for _, k := range []string{`["w", 1]`, `["w", 2]`, `["x"]`} {
		if _, err := s.Set(ctx, storetest.Key(t, k), []byte(`1`), nil); err != nil {
			t.Fatal(err)
		}
	}
	w := &watcher{s: s, prefixes: []codec.Key{storetest.Key(t, `["w"]`)}, seen: newTestSeen(t)}
	if err := w.start(ctx); err != nil {
		t.Fatal(err)
	}
	poll := func(what string, want ...string) {
		t.Helper()
		var events []watchEvent
		var err error
		if n := proxy.Count(func() { events, err = w.poll(context.Background(), c.Now()) }); err != nil || n != 1 {
			t.Errorf("%s: %d requests, %v", what, n, err)
		}
		var got []string
		for _, ev := range events {
			got = append(got, ev.Change)
		}
		if len(got) != len(want) {
			t.Errorf("%s: events %v, want %v", what, got, want)
		}
	}
	poll("idle")
	if err := s.Delete(ctx, storetest.Key(t, `["w", 1]`)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set(ctx, storetest.Key(t, `["w", 3]`), []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	poll("a delete and a set", "delete", "set")
	poll("idle again")
}
