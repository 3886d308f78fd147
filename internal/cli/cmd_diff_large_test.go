//go:build largedata

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestDiffLarge: diff of two stores of 300k rows (about 75 MB of values
// each) and of a store and its 300k-line dump streams: the heap stays far
// below one side's size, and the few differences are found.
func TestDiffLarge(t *testing.T) {
	const rows = 300000
	seed := func(url string) {
		storetest.Open(t, url, store.Options{}).Close()
		storetest.Exec(t, url,
			fmt.Sprintf(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d) `+
				`INSERT INTO kv SELECT CAST(x'026200' || x'03' || printf('%%016x', i) AS BLOB), '"' || printf('%%0250d', i) || '"', i, NULL FROM c`, rows),
			fmt.Sprintf(`UPDATE kv_meta SET seq = %d`, rows))
	}
	urlA := "file:" + filepath.Join(t.TempDir(), "a.db")
	urlB := "file:" + filepath.Join(t.TempDir(), "b.db")
	seed(urlA)
	seed(urlB)
	storetest.Exec(t, urlB, `UPDATE kv SET v = '"changed"' WHERE ver IN (10, 150000)`, `DELETE FROM kv WHERE ver = 299999`)
	c := &cli{t: t, url: urlA, now: storetest.T0}
	dump := filepath.Join(t.TempDir(), "a.jsonl")
	if err := os.WriteFile(dump, []byte(c.must("dump")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, a, b, summary string }{
		{"store to store", urlA, urlB, "# 0 added, 1 removed, 2 changed, 299997 the same"},
		{"dump to store", dump, urlB, "# 0 added, 1 removed, 2 changed, 299997 the same"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runtime.GC()
			var peak atomic.Uint64
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				var m runtime.MemStats
				for {
					runtime.ReadMemStats(&m)
					if m.HeapInuse > peak.Load() {
						peak.Store(m.HeapInuse)
					}
					select {
					case <-stop:
						return
					case <-time.After(5 * time.Millisecond):
					}
				}
			}()
			r := c.run("diff", tc.a, tc.b)
			close(stop)
			<-done
			out := lines(r.stdout)
			if r.code != 1 || len(out) != 4 || out[3] != tc.summary {
				t.Fatalf("exit %d, %q", r.code, strings.Join(out, "\n"))
			}
			t.Logf("peak heap in use %d MB (one side holds ~%d MB of values)", peak.Load()>>20, rows*252>>20)
			if peak.Load() > 48<<20 {
				t.Errorf("peak heap %d MB: diff does not stream", peak.Load()>>20)
			}
		})
	}
}
