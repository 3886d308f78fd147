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
		w := &watcher{s: s, prefixes: []codec.Key{{codec.String("bulk")}}, known: map[string]store.Entry{}}
		if err := w.start(ctx); err != nil {
			t.Fatal(err)
		}
		if len(w.known) != rows {
			t.Fatalf("start saw %d rows, want %d", len(w.known), rows)
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		t.Logf("after start: heap %d MB, values kept %d MB", m.HeapAlloc>>20, w.kept>>20)
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
