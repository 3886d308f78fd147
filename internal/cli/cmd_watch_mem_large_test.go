//go:build largedata

package cli

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// bulkStore opens a fresh store of backend b holding rows rows under
// ["bulk", <8 random bytes>], each value a JSON string of 2*valueBytes
// hex digits, written straight in SQL; seq ends at rows.
func bulkStore(t *testing.T, b storetest.Backend, rows, valueBytes int) *store.Store {
	t.Helper()
	url := b.URL(t)
	s := storetest.Open(t, url, store.Options{})
	storetest.Exec(t, url,
		fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d) `+
			`INSERT INTO kv SELECT CAST(x'0262756c6b000480' || randomblob(8) AS BLOB), '"' || hex(randomblob(%d)) || '"', i, NULL FROM c`, rows, valueBytes),
		fmt.Sprintf(`UPDATE kv_meta SET seq = %d`, rows))
	return s
}

// startBulkWatch starts a watch of ["bulk"] and fails unless its start
// saw rows rows.
func startBulkWatch(ctx context.Context, t *testing.T, s *store.Store, rows int) *watcher {
	t.Helper()
	w := startTestWatcher(ctx, t, s, []codec.Key{{codec.String("bulk")}})
	if w.seen.Len() != rows {
		t.Fatalf("start saw %d rows, want %d", w.seen.Len(), rows)
	}
	return w
}

// requireSeesNextSet sets ["bulk", "new"] and polls w until it reports
// that set alone; any other event, or 50 polls without it, fails.
func requireSeesNextSet(ctx context.Context, t *testing.T, s *store.Store, w *watcher) {
	t.Helper()
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
			return
		}
		if len(events) > 0 || i > 50 {
			t.Fatalf("poll %d: %d events, want the set of %s", i, len(events), codec.Format(key))
		}
	}
}

// TestWatchLargePrefixMemoryLarge: a watch of a prefix
// of 100k rows of 2 KB values (200 MB of values), on a file and over a
// real sqld, sees the first commit after it started and holds a bounded
// heap: the keys and stamps of the rows seen and at most
// watchValueBudget of their values. Before the bound it kept every value
// (a heap over 250 MB here; 0.5 GB for 350k rows in the issue).
func TestWatchLargePrefixMemoryLarge(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		const rows = 100_000
		s := bulkStore(t, b, rows, 1000)
		ctx := context.Background() // a start of 200 MB over sqld takes a while under load
		w := startBulkWatch(ctx, t, s, rows)
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		t.Logf("after start: heap %d MB, values kept %d MB", m.HeapAlloc>>20, w.seen.Kept()>>20)
		if m.HeapAlloc > 120<<20 {
			t.Errorf("a watch of %d rows of 2 KB holds %d MB of heap", rows, m.HeapAlloc>>20)
		}
		// The values kept live in DiskRows' SQLite table, whose memory
		// the Go heap above does not count: the bound is checked itself.
		if w.seen.Kept() > watchValueBudget {
			t.Errorf("the watch keeps %d MB of values, over its budget of %d MB", w.seen.Kept()>>20, watchValueBudget>>20)
		}
		requireSeesNextSet(ctx, t, s, w)
	})
}

// TestWatch200kPrefixHeapLarge: a watch of a prefix of
// 200k small rows, on a file and over a real sqld, holds the rows it saw
// in a private temporary database, not in its heap, and sees the first
// commit after it started. Before (keys and stamps of every row in maps):
// see the commit message for the heap measured.
func TestWatch200kPrefixHeapLarge(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		const rows = 200_000
		s := bulkStore(t, b, rows, 40)
		ctx := context.Background()
		runtime.GC()
		var m0, m runtime.MemStats
		runtime.ReadMemStats(&m0)
		t0 := time.Now()
		w := startBulkWatch(ctx, t, s, rows)
		runtime.GC()
		runtime.ReadMemStats(&m)
		grew := int64(m.HeapAlloc) - int64(m0.HeapAlloc)
		t.Logf("start took %s; heap %d MB (grew %d MB)", time.Since(t0).Round(time.Millisecond), m.HeapAlloc>>20, grew>>20)
		if grew > 24<<20 {
			t.Errorf("a watch of %d rows grew the heap by %d MB", rows, grew>>20)
		}
		requireSeesNextSet(ctx, t, s, w)
	})
}
