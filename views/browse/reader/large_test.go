//go:build largedata

package reader

import (
	"path/filepath"
	"runtime"
	"testing"

	"kvdeck/views/viewtest"
)

// TestLargeReader reads a 50 MB value in the reader on a file, as
// TestReaderStreamsAValueOfAnySize reads a few MB.
func TestLargeReader(t *testing.T) {
	value := viewtest.BigValue(50 << 20)
	checkBigReader(t, bigHarness(t, filepath.Join(t.TempDir(), "big.db"), value, 100, 30), value)
}

// TestLargeReaderMemory reports what opening a 50 MB value in the reader
// allocates and keeps: the whole layout (the reader before) against the
// index and the window (now). A measurement, logged, not a timed
// assertion; the entry pane's read of the row (the whole value, as List
// returns it) is outside both.
func TestLargeReaderMemory(t *testing.T) {
	value := viewtest.BigValue(50 << 20)
	h := bigHarness(t, filepath.Join(t.TempDir(), "big.db"), value, 120, 37)

	measure := func(open func() any) (allocated, kept uint64) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		held := open()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(held)
		return after.TotalAlloc - before.TotalAlloc, after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
	}
	var whole *readerText
	oldAlloc, oldKept := measure(func() any {
		whole = layoutValue(value, h.M.reader.inner(), false)
		return whole
	})
	t.Logf("the whole layout: %d MB of text, %d rows (%d MB of ranges)", len(whole.text)>>20, len(whole.rows), cap(whole.rows)*16>>20)
	whole = nil
	newAlloc, newKept := measure(func() any {
		h.Keys("v")
		r := &h.M.reader
		h.Keys("G")
		return r
	})
	t.Logf("50 MB value: whole layout (before) allocated %d MB, kept %d MB; streamed reader (now) allocated %d MB, kept %d KB (%d marks, %d rows in the window)",
		oldAlloc>>20, oldKept>>20, newAlloc>>20, newKept>>10, len(h.M.reader.idx.marks), len(h.M.reader.win.rows))
}
