package viewtest

import (
	"fmt"
	"runtime"
	"strings"
)

// BigValue is a JSON object of about size bytes, for the tests of large
// values (Browse's reader, its entry read, E's file): records whose
// strings hold \n, a "hit-N" every 1000 records, a rune cut by any chunk
// size, an escape that must not reach the terminal, and a needle at the
// end.
func BigValue(size int) []byte {
	var b strings.Builder
	b.Grow(size + 1024)
	b.WriteString(`{"items":[`)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `{"n":%d,"s":"héllo ✓ wörld\nline two","e":{}},`, i)
		if i%1000 == 0 {
			fmt.Fprintf(&b, `"hit-%d",`, i/1000)
		}
	}
	b.WriteString(`"needle at the end\u001b[31m"]}`)
	return []byte(b.String())
}

// Allocated is what fn allocates, in bytes, on every goroutine
// (runtime.MemStats.TotalAlloc, after a GC).
func Allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
