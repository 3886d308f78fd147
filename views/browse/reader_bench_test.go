package browse

import (
	"fmt"
	"strings"
	"testing"

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

// BenchmarkReaderLayout lays a whole 1 MB value out for the reader (once
// per value and width); the baseline is the entry pane's preparation of
// its first 64 KiB (widgets.PrepareValue), measured in the same run.
func BenchmarkReaderLayout(b *testing.B) {
	v := benchValue()
	st := viewtest.Styles()
	b.Run("entry-pane-64KiB", func(b *testing.B) {
		for range b.N {
			widgets.PrepareValue(st, v, 70, true)
		}
	})
	b.Run("reader-whole-1MB", func(b *testing.B) {
		for range b.N {
			layoutValue(v, 70, false)
		}
	})
	b.Run("reader-whole-1MB-L", func(b *testing.B) {
		for range b.N {
			layoutValue(v, 70, true)
		}
	})
}
