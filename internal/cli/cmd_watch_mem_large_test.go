//go:build largedata

package cli

import (
	"context"
	"runtime"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestWatchLargePrefixMemoryLarge (issue 25 point 2): a watch of a prefix
// of 100k rows of 2 KB values (200 MB of values), on a file and over a
// real sqld, sees the first commit after it started and holds a bounded
// heap: the keys and stamps of the rows seen and at most
// watchValueBudget of their values. Before the bound it kept every value
// (a heap over 250 MB here; 0.5 GB for 350k rows in the issue).
func TestWatchLargePrefixMemoryLarge(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		const rows = 100_000
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{})
		storetest.Exec(t, url,
			`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 100000) `+
				`INSERT INTO kv SELECT CAST(x'0262756c6b000480' || randomblob(8) AS BLOB), '"' || hex(randomblob(1000)) || '"', i, NULL FROM c`,
			`UPDATE kv_meta SET seq = 100000`)
		ctx := context.Background() // a start of 200 MB over sqld takes a while under load
		w := &watcher{s: s, prefixes: []codec.Key{{codec.String("bulk")}}, seen: newTestSeen(t)}
		if err := w.start(ctx); err != nil {
			t.Fatal(err)
		}
		if w.seen.n != rows {
			t.Fatalf("start saw %d rows, want %d", w.seen.n, rows)
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		t.Logf("after start: heap %d MB, values kept %d MB", m.HeapAlloc>>20, w.seen.kept>>20)
		if m.HeapAlloc > 120<<20 {
			t.Errorf("a watch of %d rows of 2 KB holds %d MB of heap", rows, m.HeapAlloc>>20)
		}
		key := codec.Key{codec.String("bulk"), codec.String("new")}
		if _, err := s.Set(ctx, key, []byte(`1`), nil); err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			events, err := w.poll(ctx, time.Now().UnixMilli())
			if err != nil {
				t.Fatalf("poll %d: %v", i, err)
			}
			if len(events) == 1 && events[0].Change == "set" && codec.Format(*events[0].Key) == codec.Format(key) {
				break
			}
			if len(events) > 0 || i > 50 {
				t.Fatalf("poll %d: %d events, want the set of %s", i, len(events), codec.Format(key))
			}
		}
	})
}

// TestWatch200kPrefixHeapLarge (issue 25 point 2): a watch of a prefix of
// 200k small rows, on a file and over a real sqld, holds the rows it saw
// in a private temporary database, not in its heap, and sees the first
// commit after it started. Before (keys and stamps of every row in maps):
// see the commit message for the heap measured.
func TestWatch200kPrefixHeapLarge(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		const rows = 200_000
		url := b.URL(t)
		s := storetest.Open(t, url, store.Options{})
		storetest.Exec(t, url,
			`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 200000) `+
				`INSERT INTO kv SELECT CAST(x'0262756c6b000480' || randomblob(8) AS BLOB), '"' || hex(randomblob(40)) || '"', i, NULL FROM c`,
			`UPDATE kv_meta SET seq = 200000`)
		ctx := context.Background()
		runtime.GC()
		var m0, m runtime.MemStats
		runtime.ReadMemStats(&m0)
		w := &watcher{s: s, prefixes: []codec.Key{{codec.String("bulk")}}, seen: newTestSeen(t)}
		t0 := time.Now()
		if err := w.start(ctx); err != nil {
			t.Fatal(err)
		}
		if w.seen.n != rows {
			t.Fatalf("start saw %d rows, want %d", w.seen.n, rows)
		}
		runtime.GC()
		runtime.ReadMemStats(&m)
		grew := int64(m.HeapAlloc) - int64(m0.HeapAlloc)
		t.Logf("start took %s; heap %d MB (grew %d MB)", time.Since(t0).Round(time.Millisecond), m.HeapAlloc>>20, grew>>20)
		if grew > 24<<20 {
			t.Errorf("a watch of %d rows grew the heap by %d MB", rows, grew>>20)
		}
		key := codec.Key{codec.String("bulk"), codec.String("new")}
		if _, err := s.Set(ctx, key, []byte(`1`), nil); err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			events, err := w.poll(ctx, time.Now().UnixMilli())
			if err != nil {
				t.Fatalf("poll %d: %v", i, err)
			}
			if len(events) == 1 && events[0].Change == "set" && codec.Format(*events[0].Key) == codec.Format(key) {
				break
			}
			if len(events) > 0 || i > 50 {
				t.Fatalf("poll %d: %d events, want the set of %s", i, len(events), codec.Format(key))
			}
		}
	})
}
