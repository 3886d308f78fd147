package reader

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// TestReaderStreamsAValueOfAnySize: A value of several MB (2.5 MB on a file,
// 1 MB over sqld, whose client
// decodes each chunk's JSON slowly under -race: ten and four chunks and
// index marks; the largedata test reads 50 MB) is read in the
// reader through a window: G shows its last rows as the
// whole layout has them, a page in the middle too, / counts every match
// through the whole value and finds the needle at its end, and the
// reader never holds more than a few screens of rows. On a file and over
// sqld.
func TestReaderStreamsAValueOfAnySize(t *testing.T) {
	for _, backend := range []string{"file", "sqld"} {
		t.Run(backend, func(t *testing.T) {
			value := viewtest.BigValue(10 * scanMarkEvery)
			url := filepath.Join(t.TempDir(), "big.db")
			if backend == "sqld" {
				url = sqldtest.Start(t).URL
				value = viewtest.BigValue(4 * scanMarkEvery)
			}
			checkBigReader(t, bigHarness(t, url, value, 100, 30), value)
		})
	}
}

// bigHarness hosts a reader of w x h cells over a new store at url
// where value is at ["big", "value"], selected.
func bigHarness(t *testing.T, url string, value []byte, w, h int) *viewtest.Harness[host] {
	t.Helper()
	clock := viewtest.FixedClock()
	s := storetest.Open(t, url, store.Options{Clock: clock.Now, Create: true})
	hs := startHarness(t, s, clock, w, h)
	setValue(t, hs, `["big", "value"]`, value)
	hs.Refresh()
	goTo(hs, `["big", "value"]`)
	return hs
}

// checkBigReader reads value, stored at ["big", "value"], in the reader.
func checkBigReader(t *testing.T, h *viewtest.Harness[host], value []byte) {
	t.Helper()
	h.Keys("v")
	r := &h.M.reader
	want := layoutValue(value, h.M.reader.inner(), false)
	if !r.idx.done || r.idx.err != nil || r.idx.rows != len(want.rows) {
		t.Fatalf("the index counted %d rows (done %v, %v); the whole layout has %d", r.idx.rows, r.idx.done, r.idx.err, len(want.rows))
	}
	if n := len(r.idx.marks); n != (len(value)+scanMarkEvery-1)/scanMarkEvery {
		t.Errorf("%d marks for %d bytes", n, len(value))
	}
	rows := h.M.reader.rows()
	checkWindow := func(what string) {
		t.Helper()
		if len(r.win.rows) > 4*rows {
			t.Errorf("%s: the window holds %d rows; want a few screens (%d each)", what, len(r.win.rows), rows)
		}
		for i := r.off; i < r.off+rows; i++ {
			if got := r.win.rows[i-r.win.from]; got != want.row(i) {
				t.Fatalf("%s: row %d is %q, the whole layout's %q", what, i, got, want.row(i))
			}
		}
	}
	checkWindow("first screen")
	h.Keys("G")
	if r.off != len(want.rows)-rows {
		t.Fatalf("G shows from row %d of %d", r.off, len(want.rows))
	}
	checkWindow("G")
	h.RequireView(`"needle at the end\u001b[31m"`)
	for range 3 {
		h.Keys("pgup")
	}
	checkWindow("pgup")
	r.off = len(want.rows) / 2
	h.Keys("down")
	checkWindow("the middle")

	h.Keys("g", "/")
	h.TypeText("HIT-")
	h.Keys("enter")
	hits := strings.Count(string(value), `"hit-`)
	h.RequireView(fmt.Sprintf(`"HIT-" match 1 of %d`, hits), `"hit-0"`)
	h.Keys("N")
	h.RequireView(fmt.Sprintf(`"HIT-" match %d of %d`, hits, hits), fmt.Sprintf(`"hit-%d"`, hits-1))
	if h.M.reader.note != "wrapped to the last match" {
		t.Errorf("N from the top says %q", h.M.reader.note)
	}
	checkWindow("N")
	h.Keys("/")
	h.TypeText("needle")
	h.Keys("enter")
	h.RequireView(`"needle" match 1 of 1`, "needle at the end")
	h.Keys("n")
	h.RequireView(`"needle" match 1 of 1`)
	if h.M.reader.note != "wrapped to the first match" {
		t.Errorf("n on the only match says %q", h.M.reader.note)
	}
}

// TestReaderSearchProgress: while the search streams through the value,
// the title counts the matches so far ("match 1 of ≥1 so far",
// "searching 256.0 KiB of …"), n past the last match found waits instead
// of wrapping, and esc stops the search where it is, saying so.
func TestReaderSearchProgress(t *testing.T) {
	h := newHarness(t, 180, 30)
	value := viewtest.BigValue(6 * scanMarkEvery)
	setValue(t, h, `["big", "value"]`, value)
	goTo(h, `["big", "value"]`)
	h.Keys("v", "/")
	h.TypeText("hit-")
	m, step := h.M.Update(viewtest.Key("enter"))
	msg := step() // the first chunk (256 KiB) only: the rest is not asked
	m, next := m.Update(msg)
	if next == nil || !m.reader.find.busy || m.reader.find.count == 0 {
		t.Fatalf("after one chunk: busy %v, %d matches, next step %v", m.reader.find.busy, m.reader.find.count, next != nil)
	}
	h.M = m
	h.RequireView(fmt.Sprintf(`"hit-" match 1 of ≥%d so far`, m.reader.find.count), "searching 256.0 KiB of")
	for range m.reader.find.count {
		h.Keys("n")
	}
	if h.M.reader.note != "no further match found yet" || h.M.reader.find.match != h.M.reader.find.count-1 {
		t.Fatalf("n past the last match so far: note %q, match %d of %d", h.M.reader.note, h.M.reader.find.match, h.M.reader.find.count)
	}
	h.Keys("esc")
	h.RequireView("(stopped at 256.0 KiB of")
	h.Send(next()) // the step asked before esc: dropped
	if f := h.M.reader.find; f.busy || !f.stopped || f.read != scanMarkEvery {
		t.Fatalf("after esc: busy %v, stopped %v, read %d", f.busy, f.stopped, f.read)
	}
}

// TestReaderValueRewritten: a value rewritten while the reader is open
// is not spliced with the old one: a window read from the index's marks
// finds the new stamp, and the reader counts the new value's rows again.
func TestReaderValueRewritten(t *testing.T) {
	h := newHarness(t, 100, 30)
	setValue(t, h, `["big", "value"]`, viewtest.BigValue(4*scanMarkEvery))
	goTo(h, `["big", "value"]`)
	h.Keys("v")
	small := []byte(`{"now":"small"}`)
	setValue(t, h, `["big", "value"]`, small)
	h.Keys("G") // reads the end from a mark: the stamp differs
	r := h.M.reader
	if !r.open || !r.idx.done || r.idx.rows != len(layoutValue(small, h.M.reader.inner(), false).rows) {
		t.Fatalf("after the rewrite the reader counts %d rows (done %v)", r.idx.rows, r.idx.done)
	}
	h.RequireView(`"now": "small"`)
}

// TestScanMatchesTheWholeLayout: the streamed scan (chunks, marks, the
// indenter, runes and escapes cut anywhere) lays a value out row for row
// as the whole layout in memory did, with and without L, at two widths;
// a window scan from any mark gives the same rows from there.
func TestScanMatchesTheWholeLayout(t *testing.T) {
	h := newHarness(t, 80, 18)
	value := viewtest.BigValue(3*scanMarkEvery + 1000)
	setValue(t, h, `["big", "value"]`, value)
	goTo(h, `["big", "value"]`)
	for _, lines := range []bool{false, true} {
		for _, w := range []int{7, 70} {
			want := layoutValue(value, w, lines)
			var got []string
			var marks []scanPos
			s := newScan(h.S, h.M.row.E.Raw, w, true, lines, scanPos{})
			s.emit = func(_ int, text []byte, _ bool) { got = append(got, string(text)) }
			s.mark = func(p scanPos) { marks = append(marks, p) }
			for !s.done {
				s.step(viewtest.Ctx, 0, 0)
			}
			if s.err != nil || len(got) != len(want.rows) || len(marks) != 4 {
				t.Fatalf("lines %v, width %d: %d rows (%v), %d marks; want %d rows, 4 marks", lines, w, len(got), s.err, len(marks), len(want.rows))
			}
			for i := range got {
				if got[i] != want.row(i) {
					t.Fatalf("lines %v, width %d: row %d is %q, want %q", lines, w, i, got[i], want.row(i))
				}
			}
			mark := marks[len(marks)-1]
			s = newScan(h.S, h.M.row.E.Raw, w, true, lines, mark)
			n := 0
			s.emit = func(row int, text []byte, _ bool) {
				if row != mark.row+n || string(text) != want.row(row) {
					t.Fatalf("from the last mark: row %d is %q, want row %d %q", row, text, mark.row+n, want.row(mark.row+n))
				}
				n++
			}
			for !s.done {
				s.step(viewtest.Ctx, 0, 0)
			}
		}
	}
}
