package activity

import (
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/changefeed"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// BenchmarkApplyBulkPage: a page of 200 new rows (a bulk write read while
// catching up) applied to a feed already holding maxEvents events and a
// full recheck window: the cost of one page of a catch-up.
func BenchmarkApplyBulkPage(b *testing.B) {
	page := func(from int) store.ChangesPage {
		p := store.ChangesPage{Next: int64(from + 200)}
		for i := range 200 {
			k := viewtest.KeyOf("bulk", from+i)
			p.Entries = append(p.Entries, store.Entry{Key: k, Raw: codec.MustEncode(k), Ver: int64(from + i + 1), Value: []byte(`{"n":1}`)})
		}
		return p
	}
	f := newFeed()
	for i := 0; i < maxEvents+maxKept; i += 200 {
		f.apply(page(i), changefeed.Request{}, 0)
	}
	pages := make([]store.ChangesPage, 64)
	for i := range pages {
		pages[i] = page(1_000_000 + 200*i)
	}
	b.ResetTimer()
	for i := range b.N {
		f.apply(pages[i%len(pages)], changefeed.Request{}, 0)
	}
}
