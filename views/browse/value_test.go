package browse

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/views/viewtest"
	"kvdeck/views/widgets"
)

// bigJSON is a JSON object of at least n bytes: {"items":[{"id":0,"name":
// "item-0 ..."}, ...]}, with an escape sequence in every name.
func bigJSON(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"items":[`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"item-%d \u001b]52;c;eA==\u0007 padding padding padding"}`, i, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// largeValueHarness opens a Browse view on a store holding one value of
// each size under ["big", ...], with the first one selected.
func largeValueHarness(t *testing.T, sizes ...int) (*viewtest.Harness[Model], []int) {
	t.Helper()
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, "file:"+filepath.Join(t.TempDir(), "big.db"), clock, false)
	var stored []int
	for i, n := range sizes {
		v := bigJSON(n)
		if _, err := s.Set(context.Background(), codec.Key{codec.String("big"), codec.String(fmt.Sprintf("v%d", i))}, v, nil); err != nil {
			t.Fatal(err)
		}
		stored = append(stored, len(v))
	}
	h := viewtest.Start[Model, *Model](t, s, clock, 120, 37, New)
	h.Keys("enter", "j") // open ["big"], select its first child
	return h, stored
}

// frameCost is the allocations and bytes of one View.
func frameCost(m Model) (allocs float64, bytes uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const n = 5
	for range n {
		_ = m.View()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / n, (after.TotalAlloc - before.TotalAlloc) / n
}

// TestLargeValueFrames: a 1 MB and a 20 MB value draw a frame that says
// the value is truncated, with what is on screen only; a frame costs the
// same whatever the value's size, and edit / compose refuse it with a
// reason (before the fix each frame re-wrapped the
// whole value, ~18 s and ~1 GB for 1 MB).
func TestLargeValueFrames(t *testing.T) {
	h, stored := largeValueHarness(t, 1<<20, 20<<20)
	var costs []uint64
	for i, size := range stored {
		if i > 0 {
			h.Keys("j")
		}
		view := h.M.View()
		want := fmt.Sprintf("value is %s: its first 64.0 KiB shown; v reads it all", widgets.BytesText(int64(size)))
		if !strings.Contains(strings.Join(strings.Fields(view), " "), want) {
			t.Fatalf("%d-byte value: the frame does not say %q:\n%s", size, want, view)
		}
		if strings.Contains(view, "\x1b]52") {
			t.Errorf("%d-byte value: the frame holds a raw OSC 52", size)
		}
		h.M.pane.cache.Forget() // prepare again: the cost of the first frame after a load
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_ = h.M.View()
		runtime.ReadMemStats(&after)
		allocs, bytes := frameCost(h.M)
		t.Logf("%d-byte value: first frame %d allocations, %d bytes; then %.0f allocations, %d bytes per frame",
			size, after.Mallocs-before.Mallocs, after.TotalAlloc-before.TotalAlloc, allocs, bytes)
		if first := after.TotalAlloc - before.TotalAlloc; first > 64<<20 {
			t.Errorf("%d-byte value: the first frame allocates %d bytes; want it bounded by widgets.ValueCap", size, first)
		}
		if bytes > 4<<20 {
			t.Errorf("%d-byte value: a frame allocates %d bytes; want it bounded by the screen, not the value", size, bytes)
		}
		costs = append(costs, bytes)
		h.Keys("e")
		h.RequireFlash("the TUI edits values up to")
		h.Keys("c")
		h.RequireFlash("Compose takes values up to")
	}
	if costs[1] > 2*costs[0]+64<<10 {
		t.Errorf("a frame of the 20 MB value costs %d bytes, of the 1 MB one %d: it grows with the value", costs[1], costs[0])
	}
	// scrolling to the end of what is prepared stays bounded too
	h.Keys("G")
	for range 50 {
		h.Keys("J")
	}
	if _, bytes := frameCost(h.M); bytes > 4<<20 {
		t.Errorf("scrolled: a frame allocates %d bytes", bytes)
	}
}

// TestJSONPrefixLinesOfAValueCutAnywhere: the first bytes of a value, cut
// at any byte, pretty-print without panicking, as JSONLines would print
// the whole, and never show a raw escape.
func TestJSONPrefixLinesOfAValueCutAnywhere(t *testing.T) {
	v := []byte(`{"a":[1,{"b":"x\u001b]0;t\u0007 é \"q\""},[],{}],"c":null}`)
	for cut := 0; cut <= len(v); cut++ {
		_, _, _ = widgets.PrepareValue(viewtest.Styles(), v[:cut], 40, true)
	}
	raw := []byte("{\"a\":\"\x1b]52;c;eA==\x07\",\"b\":[1,2]}")
	lines, _, _ := widgets.PrepareValue(viewtest.Styles(), append(raw, bytes.Repeat([]byte(" "), widgets.ValueCap)...), 40, true)
	got := strings.Join(lines, "\n")
	if strings.Contains(got, "\x1b]52") || !strings.Contains(got, `\u001b]52`) {
		t.Errorf("a truncated value shows %q", got)
	}
}
