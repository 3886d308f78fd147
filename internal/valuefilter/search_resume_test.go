package valuefilter_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/internal/valuefilter"
	"kvdeck/store"
)

// TestSearchErrorCursor: A search that fails part way
// returns, with the error, the matches found and the cursor just after
// the last row examined: here ctx ends inside the expression's run on
// row 5 (it never ends there), so the matches of rows 0-4 are kept and
// the cursor resumes at row 5, neither skipping nor repeating a row.
func TestSearchErrorCursor(t *testing.T) {
	s := storetest.Open(t, "file:"+t.TempDir()+"/kv.db", store.Options{})
	ctx := storetest.Ctx(t)
	a := s.Atomic()
	for i := range 10 {
		a.Set(codec.Key{codec.String("s"), codec.Number(float64(i))}, []byte(fmt.Sprintf(`{"n":%d}`, i)))
	}
	if _, err := a.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	stuck, err := valuefilter.Jq(`if .n == 5 then last(range(infinite)) else .n % 2 == 0 end`)
	if err != nil {
		t.Fatal(err)
	}
	opts := store.ListOptions{Prefix: storetest.Key(t, `["s"]`)}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	p, err := valuefilter.Search(short, s, opts, stuck, 100, 0)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the endless expression ended with %v", err)
	}
	if len(p.Entries) != 3 || p.Scanned != 5 || p.Cursor == "" {
		t.Fatalf("%d matches after %d rows, cursor %q: want 0, 2, 4 after 5 rows and a cursor", len(p.Entries), p.Scanned, p.Cursor)
	}
	even, _ := valuefilter.Jq(`.n % 2 == 0`)
	opts.Cursor = p.Cursor
	q, err := valuefilter.Search(ctx, s, opts, even, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	if q.Scanned != 5 || len(q.Entries) != 2 || fmt.Sprint(q.Entries[0].Key[1]) != "6" {
		t.Errorf("resumed: %d rows, %d matches (first %v); want rows 5-9, matches 6 and 8", q.Scanned, len(q.Entries), q.Entries)
	}
}
