package browse

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
	"kvdeck/views/widgets"
)

// TestReaderPagesAndSearchesTheValue: v gives the entry pane the keys to
// page through a long value (pgdn, space, pgup, g) and search in it (/,
// n, N); esc gives the keys back to the tree (issue 13: long values).
func TestReaderPagesAndSearchesTheValue(t *testing.T) {
	h := newHarness(t, false, 80, 12)
	goTo(h, `["accounts", "acme"]`)
	h.Keys("v")
	if !h.M.Capturing() || h.M.reader == nil {
		t.Fatal("v did not open the reader")
	}
	h.RequireView("VALUE 1-", "space page")
	h.Keys(" ")
	if h.M.reader.off == 0 {
		t.Fatalf("space did not page:\n%s", h.M.View())
	}
	h.Keys("g")
	if h.M.reader.off != 0 {
		t.Fatalf("g left the reader at row %d", h.M.reader.off+1)
	}
	h.Keys("/")
	h.TypeText("SSO")
	h.Keys("enter")
	first := h.M.reader.find.match
	if first < 0 || h.M.reader.off == 0 {
		t.Fatalf("the search for sso found match %d, shows from %d:\n%s", first, h.M.reader.off, h.M.View())
	}
	h.RequireView(`"SSO" match 1 of 1`)
	h.Keys("/", "ctrl+u")
	h.TypeText("e") // on many lines
	h.Keys("enter")
	first = h.M.reader.find.match
	h.Keys("n")
	if m := h.M.reader.find.match; m == first || m < 0 {
		t.Fatalf("n stayed on match %d", m)
	}
	h.Keys("N")
	if h.M.reader.find.match != first {
		t.Fatalf("N went to match %d, want %d", h.M.reader.find.match, first)
	}
	h.Keys("esc")
	if h.M.reader != nil || h.M.Capturing() {
		t.Fatal("esc did not close the reader")
	}
	if !strings.Contains(h.M.View(), "v read") {
		t.Fatalf("the long value does not offer the reader:\n%s", h.M.View())
	}
}

// setValue writes key = value in the harness's store.
func setValue(t *testing.T, h *viewtest.Harness[Model], k string, value []byte) {
	t.Helper()
	if _, err := h.S.Commit(viewtest.Ctx, nil, []store.Mutation{{Type: store.MutationSet, Key: storetest.Key(t, k), Value: value}}); err != nil {
		t.Fatal(err)
	}
}

// TestReaderReadsTheWholeValue: issue 22 point 7. The reader stopped at
// 64 KiB and / past that point answered "no match"; it counts the
// matches ("match 3 of 10"), n after G finds the match after the screen
// (not after the last found), / starts a fresh query, and L shows the
// \n in JSON strings as lines.
func TestReaderReadsTheWholeValue(t *testing.T) {
	h := newHarness(t, false, 80, 18)
	var b strings.Builder
	b.WriteString(`["hit-0"`)
	for i := range 3000 {
		fmt.Fprintf(&b, `, "filler %05d %s"`, i, strings.Repeat("x", 40))
		if i%300 == 0 {
			fmt.Fprintf(&b, `, "hit-%d"`, i/300+1)
		}
	}
	b.WriteString(`, "needle past 64 KiB"]`)
	if b.Len() < 2*widgets.ValueCap {
		t.Fatalf("the value is %d bytes; want well past %d", b.Len(), widgets.ValueCap)
	}
	setValue(t, h, `["big", "value"]`, []byte(b.String()))
	goTo(h, `["big", "value"]`)
	h.Keys("v", "/")
	h.TypeText("needle")
	h.Keys("enter")
	h.RequireView(`"needle" match 1 of 1`, "needle past 64 KiB")

	h.Keys("g", "/")
	if h.M.reader.in.Value() != "" {
		t.Errorf("/ starts with %q; want a fresh query", h.M.reader.in.Value())
	}
	h.TypeText("hit-")
	h.Keys("enter")
	h.RequireView(`"hit-" match 1 of 11`)
	h.Keys("n", "n")
	h.RequireView(`"hit-" match 3 of 11`)
	h.Keys("G", "n") // the last hit is far above the end: n wraps to the first
	h.RequireView(`"hit-" match 1 of 11`, `"hit-0"`)

	setValue(t, h, `["big", "text"]`, []byte(`{"poem":"one\ntwo\nthree"}`))
	h.Keys("esc")
	goTo(h, `["big", "text"]`)
	h.Keys("v", "L")
	var rows []string
	for _, row := range h.M.reader.win.rows {
		rows = append(rows, strings.TrimSpace(row))
	}
	if got := strings.Join(rows, "|"); got != `{|"poem": "one|two|three"|}` {
		t.Errorf("L shows %q", got)
	}
}

// TestPagerStreamsTheWholeValue: | (from the tree, and from the reader)
// runs $PAGER with the whole value on its stdin, read from the store a
// chunk at a time, past 64 KiB and several chunks: indented as the reader
// shows it, escapes kept as text, runes cut by chunks whole (it was a
// temporary file written from the whole value in memory, issue 23 point 4).
func TestPagerStreamsTheWholeValue(t *testing.T) {
	h := newHarness(t, false, 80, 18)
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := 0; b.Len() < 3*store.ValueChunkSize; i++ {
		fmt.Fprintf(&b, `{"n":%d,"s":"héllo ✓ wörld\nline two","e":{},"a":[]},`, i)
	}
	b.WriteString(`"end\u001b[31m"]}`)
	value := b.String()
	setValue(t, h, `["big", "value"]`, []byte(value))
	goTo(h, `["big", "value"]`)

	out := filepath.Join(t.TempDir(), "paged")
	t.Setenv("PAGER", "less -S")
	for _, lines := range []bool{false, true} {
		if lines {
			h.Keys("v", "L")
		}
		// | opens the command's prompt, $PAGER typed in; esc closes it.
		h.Keys("|")
		if h.M.pipeIn == nil || !h.M.Capturing() {
			t.Fatalf("| opened no prompt (flashes %v)", h.Flashes)
		}
		h.RequireView("| less -S")
		h.Keys("esc")
		if h.M.pipeIn != nil {
			t.Fatal("esc left the prompt open")
		}
		h.Keys("|", "end", "ctrl+u")
		h.TypeText("cat > " + out)
		text := h.M.pipeIn.Value()
		h.Keys("enter") // runs it through tea.Exec, which the harness does not
		if h.M.pipeIn != nil {
			t.Fatal("enter left the prompt open")
		}
		c := h.M.pager(text)
		c.SetStdin(os.Stdin) // what bubbletea does: the pager keeps the value
		if err := c.Run(); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !h.M.entry.cut || len(h.M.entry.e.Value) != entryHeadCap {
			t.Fatalf("the entry read %d bytes of the value (cut %v); want its head, %d", len(h.M.entry.e.Value), h.M.entry.cut, entryHeadCap)
		}
		want := valueText([]byte(value), lines) + "\n"
		if string(got) != want {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Fatalf("lines %v: the pager read %d bytes, want %d; they differ at %d: %q vs %q", lines, len(got), len(want), i,
				got[i:min(i+40, len(got))], want[i:min(i+40, len(want))])
		}
		if strings.ContainsRune(string(got), 0x1b) || !strings.Contains(string(got), `"end\u001b[31m"`) {
			t.Fatal("the escape reached the pager raw, or the end is missing")
		}
	}
}

// TestValueStreamSaysWhenTheValueChanges: a value rewritten between two
// chunks is not spliced with the new one: the text ends saying so.
func TestValueStreamSaysWhenTheValueChanges(t *testing.T) {
	h := newHarness(t, false, 80, 18)
	value := `"` + strings.Repeat(`x\u0007`, store.ValueChunkSize) + `"`
	setValue(t, h, `["big", "value"]`, []byte(value))
	goTo(h, `["big", "value"]`)
	s := newValueStream(h.S, h.M.entry.e.Raw, true, false)
	first := make([]byte, 100)
	if _, err := io.ReadFull(s, first); err != nil {
		t.Fatal(err)
	}
	setValue(t, h, `["big", "value"]`, []byte(`"new"`))
	rest, err := io.ReadAll(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rest), "✗ the value changed while it was read") || len(rest) > 2*store.ValueChunkSize*2 {
		t.Fatalf("the stream went on over a changed value: %d bytes, ending %q", len(rest), rest[max(len(rest)-80, 0):])
	}
}

// TestReaderSearchRunsInACommand: / in the reader searches the value in
// commands, a chunk each, not in Update (over a 100 MB value that froze
// the screen for seconds, issue 23 point 4); the title says it is
// searching; a newer query drops the older search's answer, and esc
// stops the one in flight (the reader stays open).
func TestReaderSearchRunsInACommand(t *testing.T) {
	h := newHarness(t, false, 80, 18)
	var b strings.Builder
	b.WriteString(`[`)
	for i := range 500 {
		fmt.Fprintf(&b, `"row-%d", `, i)
	}
	b.WriteString(`"last"]`)
	setValue(t, h, `["big", "value"]`, []byte(b.String()))
	goTo(h, `["big", "value"]`)
	h.Keys("v", "/")
	h.TypeText("row-49")
	m, first := h.M.Update(viewtest.Key("enter"))
	if first == nil || !m.reader.find.busy || m.reader.find.matches != nil {
		t.Fatalf("enter searched in Update: %d matches, busy %v", len(m.reader.find.matches), m.reader.find.busy)
	}
	if !strings.Contains(m.View(), `searching for "row-49"`) {
		t.Errorf("the title does not say it is searching:\n%s", m.View())
	}
	h.M = m
	h.Keys("/")
	h.TypeText("row-1")
	h.Keys("enter") // settles the newer search
	want := len(h.M.reader.find.matches)
	h.Send(first()) // the older search's answer, late
	if len(h.M.reader.find.matches) != want || want != 111 {
		t.Fatalf("%d matches after the older answer, want %d (111 rows hold row-1)", len(h.M.reader.find.matches), want)
	}
	h.RequireView(`"row-1" match 1 of 111`)

	h.Keys("/")
	h.TypeText("row-2")
	m, step := h.M.Update(viewtest.Key("enter"))
	h.M = m
	h.Keys("esc")
	if h.M.reader == nil || h.M.reader.find.busy || !h.M.reader.find.stopped {
		t.Fatal("esc during the search did not stop it, or closed the reader")
	}
	h.Send(step())
	if h.M.reader.find.count != 0 {
		t.Errorf("a stopped search took a late chunk: %d matches", h.M.reader.find.count)
	}
	h.RequireView(`no "row-2" in the first 0 B`)
	h.Keys("esc")
	if h.M.reader != nil {
		t.Fatal("esc after the search did not close the reader")
	}
}

// TestReaderSearchFindsAQuerySplitByAWrap: a query that a wrap splits
// over two rows is found, in the row where it starts, at every width
// where it is split somewhere (a 36-character id in rows of 40 to 77
// cells): before, only rows holding it whole matched.
func TestReaderSearchFindsAQuerySplitByAWrap(t *testing.T) {
	h := newHarness(t, false, 80, 18)
	const id = "7d3f0a1e-0000-4b1a-9c2d-00000000a001"
	var b strings.Builder
	b.WriteString(`{"log":"`)
	const n = 30
	for i := range n { // fillers of 80+ cells: one id starts a row at most
		b.WriteString(strings.Repeat("x", 80+i*7) + " " + strings.ToUpper(id[:8]) + id[8:] + " ")
	}
	b.WriteString(`"}`)
	setValue(t, h, `["big", "log"]`, []byte(b.String()))
	goTo(h, `["big", "log"]`)
	for _, w := range []int{40, 53, 77} {
		whole := 0
		layout := layoutValue([]byte(b.String()), w, false)
		for i := range layout.rows {
			if strings.Contains(strings.ToLower(layout.row(i)), id) {
				whole++
			}
		}
		if whole == n {
			t.Fatalf("width %d: no id is split: the test shows nothing", w)
		}
		s := newScan(h.S, h.M.entry.e.Raw, w, true, false, scanPos{})
		rm := &rowMatcher{query: []byte(id)}
		var rows []int
		for !s.done {
			step := searchCmd(0, 0, s, rm, len(rows))().(searchStep)
			rows = append(rows, step.matches...)
		}
		if s.err != nil || len(rows) != n {
			t.Errorf("width %d: %d matches (%d rows hold the id whole), want %d; %v", w, len(rows), whole, n, s.err)
		}
		for i := 1; i < len(rows); i++ {
			if rows[i] <= rows[i-1] {
				t.Errorf("width %d: matches out of order: %v", w, rows)
				break
			}
		}
	}
}
