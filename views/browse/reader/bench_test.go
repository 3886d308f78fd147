package reader

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
	"kvdeck/views/widgets"
)

// benchValue is a 1 MB JSON object of short records, as the tour
// read.
func benchValue() []byte {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; b.Len() < 1<<20; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"user %d","note":"line one\nline two"}`, i, i)
	}
	b.WriteString("]")
	return []byte(b.String())
}

// BenchmarkReaderLayout lays a whole 1 MB value out for the reader: the
// streamed index scan (chunks read from a file store, rows counted, marks
// kept: what v does now) against the whole layout in memory (what it did
// before) and the entry pane's preparation of its first 64 KiB
// (widgets.PrepareValue), measured in the same run.
func BenchmarkReaderLayout(b *testing.B) {
	v := benchValue()
	st := viewtest.Styles()
	clock := viewtest.FixedClock()
	s := storetest.Open(b, filepath.Join(b.TempDir(), "bench.db"), store.Options{Clock: clock.Now, Create: true})
	k := storetest.Key(b, `["big", "value"]`)
	if _, err := s.Commit(viewtest.Ctx, nil, []store.Mutation{{Type: store.MutationSet, Key: k, Value: v}}); err != nil {
		b.Fatal(err)
	}
	e, _, err := s.Get(viewtest.Ctx, k)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("entry-pane-64KiB", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			widgets.PrepareValue(st, v, 70, true)
		}
	})
	b.Run("whole-layout-1MB", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			layoutValue(v, 70, false)
		}
	})
	b.Run("streamed-index-1MB", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			sc := newScan(s, e.Raw, 70, true, false, scanPos{})
			marks := 0
			sc.mark = func(scanPos) { marks++ }
			for !sc.done {
				sc.step(viewtest.Ctx, 0, 0)
			}
			if sc.err != nil || marks != 5 {
				b.Fatal(sc.err, marks)
			}
		}
	})
}
