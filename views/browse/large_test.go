//go:build largedata

package browse

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// TestLargeBrowseReadsWhatItShows seeds 1,000,000 rows (200,000 children
// under ["big"], and 800 top-level prefixes of 1,000 rows each) and counts
// the statements and rows the first frame and opening ["big"] cost: one
// seek per child shown plus a constant, never a scan of the range.
func TestLargeBrowseReadsWhatItShows(t *testing.T) {
	// slack is the constant above one statement (and row) per child
	// shown: the few children loaded below the screen, the count query.
	const slack = 8
	path := filepath.Join(t.TempDir(), "large.db")
	clock := viewtest.FixedClock()
	viewtest.Open(t, path, clock, false) // creates the schema
	seed(t, path)

	s := viewtest.Open(t, path, clock, true)
	before := s.Counters()
	began := time.Now()
	h := startHarness(t, s, clock, 120, 37) // the body of a 120x40 terminal; Init settled
	first := time.Since(began)
	loaded := h.M.root.loadedKids()
	shown := int64(min(loaded, h.M.treeRows()))
	stmts, rows := delta(s.Counters(), before)
	t.Logf("first frame: %d children shown, %d loaded, %d statements, %d rows read, %v", shown, loaded, stmts, rows, first)
	if loaded != h.M.pageSize() {
		t.Fatalf("first frame loaded %d children; want one page (%d)", loaded, h.M.pageSize())
	}
	if stmts > shown+slack || rows > shown+slack {
		t.Errorf("first frame ran %d statements and read %d rows for %d children shown; want at most %d more", stmts, rows, shown, slack)
	}

	before = s.Counters()
	began = time.Now()
	h.Keys("enter") // ["big"] is the first child
	open := time.Since(began)
	big := h.M.root.find(codec.String("big"))
	if big == nil || !big.capped {
		t.Fatalf(`["big"] missing or its count not capped: %+v`, big)
	}
	kids := big.loadedKids()
	shown = int64(h.M.treeRows() - 1) // the ["big"] line itself is on screen too
	stmts, rows = delta(s.Counters(), before)
	t.Logf(`opening ["big"] (200000 children): %d children shown, %d loaded, %d statements, %d rows read, %v`, shown, kids, stmts, rows, open)
	if kids != h.M.pageSize() || stmts > shown+slack || rows > shown+slack {
		t.Errorf(`opening ["big"] loaded %d children with %d statements and %d rows; want one page (%d) and at most %d + %d of each`,
			kids, stmts, rows, h.M.pageSize(), shown, slack)
	}

	before = s.Counters()
	h.Keys("j") // ["big", 0]: its entry
	stmts, rows = delta(s.Counters(), before)
	t.Logf("selecting a key: %d statements, %d rows read", stmts, rows)
	if stmts != 1 || rows != 1 {
		t.Errorf("reading the selected entry ran %d statements and read %d rows; want 1 and 1", stmts, rows)
	}
}

// delta is the statements and rows read between two counter readings.
func delta(after, before store.Counters) (int64, int64) {
	return after.Statements - before.Statements, after.RowsRead - before.RowsRead
}

// seed writes the rows with plain SQL through a second handle, in
// transactions of 50,000 rows.
func seed(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var keys []codec.Key
	flush := func() {
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if _, err := tx.Exec("INSERT INTO kv (k, v, ver) VALUES (?, '0', 1)", codec.MustEncode(k)); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		keys = keys[:0]
	}
	add := func(k codec.Key) {
		if keys = append(keys, k); len(keys) == 50000 {
			flush()
		}
	}
	for i := range 200000 {
		add(codec.Key{codec.String("big"), codec.Number(float64(i))})
	}
	for p := range 800 {
		for i := range 1000 {
			add(codec.Key{codec.String(fmt.Sprintf("t%03d", p)), codec.Number(float64(i))})
		}
	}
	flush()
	if _, err := db.Exec("UPDATE kv_meta SET seq = 1"); err != nil {
		t.Fatal(err)
	}
}
