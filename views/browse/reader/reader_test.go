package reader

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kvdeck/store"
	"kvdeck/views/browse/entry"
	"kvdeck/views/viewtest"
	"kvdeck/views/widgets"
)

// TestReaderReadsTheWholeValue: The reader stopped at
// 64 KiB and / past that point answered "no match"; it counts the
// matches ("match 3 of 10"), n after G finds the match after the screen
// (not after the last found), / starts a fresh query, and L shows the
// \n in JSON strings as lines.
func TestReaderReadsTheWholeValue(t *testing.T) {
	h := newHarness(t, 80, 18)
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
// runs the command with the whole value on its stdin, read from the store
// a chunk at a time, past 64 KiB and several chunks: indented as JSON
// (under the reader's L too: a command reads JSON, L is for the screen),
// escapes kept as text, runes cut by chunks whole (it was a temporary
// file written from the whole value in memory). A
// pager gets the same stream (pager).
func TestPagerStreamsTheWholeValue(t *testing.T) {
	h := newHarness(t, 80, 18)
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
		// | opens the command's prompt, $PAGER typed in (then the last
		// command run); esc closes it.
		h.Keys("|")
		if h.M.reader.pipe == nil || !h.M.Capturing() {
			t.Fatalf("| opened no prompt (flashes %v)", h.Flashes)
		}
		if !lines {
			h.RequireView("| less -S")
		}
		h.Keys("esc")
		if h.M.reader.pipe != nil {
			t.Fatal("esc left the prompt open")
		}
		h.Keys("|", "end", "ctrl+u")
		h.TypeText("cat > " + out)
		text := h.M.reader.pipe.Value()
		h.Keys("enter") // a filter: run in a command, the harness's
		if h.M.reader.pipe != nil {
			t.Fatal("enter left the prompt open")
		}
		if o := h.M.reader.out; o == nil || o.running || o.err != nil {
			t.Fatalf("the filter did not end well: %+v", o)
		}
		h.Keys("esc")
		paged := filepath.Join(t.TempDir(), "pager")
		c := h.M.reader.pager(strings.Replace(text, out, paged, 1))
		c.SetStdin(os.Stdin) // what bubbletea does: the pager keeps the value
		if err := c.Run(); err != nil {
			t.Fatal(err)
		}
		if viaPager, err := os.ReadFile(paged); err != nil || string(viaPager) != valueText([]byte(value), false)+"\n" {
			t.Fatalf("the pager read another text (%v)", err)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !h.M.row.Cut || len(h.M.row.E.Value) != entry.HeadCap {
			t.Fatalf("the entry read %d bytes of the value (cut %v); want its head, %d", len(h.M.row.E.Value), h.M.row.Cut, entry.HeadCap)
		}
		want := valueText([]byte(value), false) + "\n"
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

// TestReaderSearchRunsInACommand: / in the reader searches the value in
// commands, a chunk each, not in Update (over a 100 MB value that froze
// the screen for seconds); the title says it is
// searching; a newer query drops the older search's answer, and esc
// stops the one in flight (the reader stays open).
func TestReaderSearchRunsInACommand(t *testing.T) {
	h := newHarness(t, 80, 18)
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
	if !h.M.reader.open || h.M.reader.find.busy || !h.M.reader.find.stopped {
		t.Fatal("esc during the search did not stop it, or closed the reader")
	}
	h.Send(step())
	if h.M.reader.find.count != 0 {
		t.Errorf("a stopped search took a late chunk: %d matches", h.M.reader.find.count)
	}
	h.RequireView(`no "row-2" in the first 0 B`)
	h.Keys("esc")
	if h.M.reader.open {
		t.Fatal("esc after the search did not close the reader")
	}
}

// TestReaderSearchFindsAQuerySplitByAWrap: a query that a wrap splits
// over two rows is found, in the row where it starts, at every width
// where it is split somewhere (a 36-character id in rows of 40 to 77
// cells): before, only rows holding it whole matched.
func TestReaderSearchFindsAQuerySplitByAWrap(t *testing.T) {
	h := newHarness(t, 80, 18)
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
		s := newScan(h.S, h.M.row.E.Raw, w, true, false, scanPos{})
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

// TestReaderTree: T shows the value as a tree parsed in a command; enter,
// → and ← fold; esc goes back to the text; a value past the tree's
// bound says so and stays in the text.
func TestReaderTree(t *testing.T) {
	h := newHarness(t, 80, 18)
	setValue(t, h, `["big", "value"]`, []byte(`{"a":{"b":[1,2,3]},"c":"x"}`))
	goTo(h, `["big", "value"]`)
	h.Keys("v")
	m, parse := h.M.Update(viewtest.Key("T"))
	if parse == nil || !m.reader.tree.on || m.reader.tree.t != nil {
		t.Fatal("T parsed the value in Update")
	}
	h.M = m
	h.Settle(parse)
	h.RequireView("VALUE TREE 1/3 · 7 values", `▸ "a": {…} 1 key`)
	h.Keys("j", "enter", "right", "right")
	h.RequireView(`▾ "b": [ 3 items`, "[2] 3")
	h.Keys("left", "left")
	h.RequireView(`▸ "b": […] 3 items`)
	h.Keys("esc")
	if !h.M.reader.open || h.M.reader.tree.on {
		t.Fatal("esc in the tree did not go back to the text")
	}
	h.RequireView("VALUE 1-")

	h.Keys("esc")
	setValue(t, h, `["big", "huge"]`, []byte(`"`+strings.Repeat("x", widgets.JSONTreeMaxBytes)+`"`))
	goTo(h, `["big", "huge"]`)
	h.Keys("v", "T")
	if h.M.reader.tree.on || !strings.Contains(h.M.reader.note, "too large for the tree") {
		t.Fatalf("T on 8 MiB: tree %v, note %q", h.M.reader.tree.on, h.M.reader.note)
	}
}
