package widgets

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"kvdeck/codec"
	"kvdeck/internal/usertext"
	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

// TestKeyCell: a key too long for its cell is shortened by tuple part:
// the first part whole, the last part's end, the parts in between each
// cut in its middle, quotes kept; a key that fits is drawn whole.
func TestKeyCell(t *testing.T) {
	st := themes.NewStyles(themes.Dark())
	queue := viewtest.KeyOf("dwk_queue_due", "invoices", 1796121459946, "52f270e7-1f2a-4c3d-839b-926c00b0d136")
	for _, c := range []struct {
		name string
		key  codec.Key
		w    int
		want string
	}{
		{"fits", viewtest.KeyOf("cache", "Inventory", "sku-teapot"), 40, `["cache", "Inventory", "sku-teapot"]`},
		{"fits exactly", viewtest.KeyOf("a", 1), 8, `["a", 1]`},
		{"the queue and due time stay", queue, 45, `["dwk_queue_due", "invoices", 17…46, "…d136"]`},
		{"more room goes to the parts in between", queue, 50, `["dwk_queue_due", "invoices", 1796…59946, "…d136"]`},
		{"then to the id's end", queue, 60, `["dwk_queue_due", "invoices", 1796121459946, "…26c00b0d136"]`},
		{"a part of 8 or fewer is never cut", queue, 40, `["dwk_que…", "invoices", 17…46, "…d136"]`},
		{"narrow: the long parts give way", queue, 33, `["dwk_…", "invoices", …, "…d136"]`},
		{"narrowest with every part readable", queue, 27, `["d…", "invoices", …, "…6"]`},
		{"short words whole", viewtest.KeyOf("users", "bob"), 17, `["users", "bob"]`},
		{"short words whole beside a long id", viewtest.KeyOf("dwk_queue_due", "emails", 1796121459950, "0b7c-11f0-9d41-3c7d1841"), 36, `["dwk_q…", "emails", 17…50, "…1841"]`},
		{"the middle number goes before the words", viewtest.KeyOf("dwk_queue_due", "emails", 1796121459950, "0b7c-11f0-9d41-3c7d1841"), 30, `["dwk…", "emails", …, "…1841"]`},
		{"quotes never hold nothing", viewtest.KeyOf("dwk_queue_due", "0123456789", 1796121459946, "52f270e7-1f2a-4c3d-839b-926c00b0d136"), 27, `["dwk_q…", …, 1…6, "…d136"]`},
		{"two parts: the id's end", viewtest.KeyOf("sessions", "5d9cc0aa-9d9f-4e1b-9d9f-f2751d9fa3e2"), 30, `["sessions", "…-f2751d9fa3e2"]`},
		{"one part: both ends", viewtest.KeyOf("0123456789abcdefghij"), 12, `["012…ghij"]`},
		{"the first and the last before the others", viewtest.KeyOf("dwk_alarm_by_id", "Billing-Europe", "0a1b2c3d4e5f"), 22, `["dwk_a…", …, "…4e5f"]`},
		{"below a short part's width: the end is cut", viewtest.KeyOf("dwk_alarm_by_id", "Billing", "0a1b2c3d4e5f"), 22, `["dwk_alarm_by_id", "…`},
		{"bytes keep b and quotes", viewtest.KeyOf("k", []byte{1, 2, 3, 4, 5, 6, 7, 8}), 17, `["k", b"…060708"]`},
		{"below the minimums: the end is cut", queue, 12, `["dwk_queue…`},
		{"nothing", queue, 0, ``},
		{"a single cell", queue, 1, `…`},
		{"the empty key", codec.Key{}, 5, `[]`},
		{"escapes never reach the terminal", viewtest.KeyOf("x", "\x1b]52;c;aGk=\x07\u202eevil"), 50, `["x", "\u001b]52;c;aGk=\u0007\u202eevil"]`},
		{"escapes shortened stay escaped", viewtest.KeyOf("x", "\x1b]52;c;aGk=\x07\u202eevil"), 30, `["x", "…aGk=\u0007\u202eevil"]`},
		{"unprintables are escaped", viewtest.KeyOf("x", "a\ue000b"), 20, `["x", "a\ue000b"]`},
		{"a wide cluster at the cut is left out", viewtest.KeyOf("k", "ab👩\u200d👩\u200d👧cdefgh"), 17, `["k", "…cdefgh"]`},
		{"wide characters stay whole", viewtest.KeyOf("k", "漢字漢字漢字漢字"), 12, `["k", "…字"]`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := KeyCell(st, c.key, c.w).Render(true)
			if got != c.want {
				t.Errorf("KeyCell(%s, %d) = %q, want %q", codec.Format(c.key), c.w, got, c.want)
			}
			if n := ansi.StringWidth(got); n > max(c.w, 0) {
				t.Errorf("%q is %d cells wide, asked %d", got, n, c.w)
			}
		})
	}
}

// TestKeyCellStyles: every part keeps its type's style when shortened.
func TestKeyCellStyles(t *testing.T) {
	st := themes.NewStyles(themes.Dark())
	l := KeyCell(st, viewtest.KeyOf("dwk_queue_due", "invoices", 1796121459946, "52f270e7-1f2a-4c3d-839b-926c00b0d136"), 45)
	var number, str int
	for _, s := range l {
		switch {
		case s.Text == "17…46" && s.Style.GetForeground() == st.PartNumber.GetForeground():
			number++
		case s.Text == `"…d136"` && s.Style.GetForeground() == st.PartString.GetForeground():
			str++
		}
	}
	if number != 1 || str != 1 {
		t.Errorf("the shortened parts lost their styles: %+v", l)
	}
}

// TestLineCutEnd: a line cut at its end keeps its spans' styles and ends
// with the ellipsis, also when a span ends exactly at the width.
func TestLineCutEnd(t *testing.T) {
	st := themes.NewStyles(themes.Dark())
	l := Line{{"abc", st.Accent}, {"def", st.Muted}}
	for w, want := range map[int]string{7: "abcdef", 6: "abcdef", 5: "abcd…", 3: "ab…", 1: "…", 0: ""} {
		got := l.CutEnd(w)
		if got.Render(true) != want {
			t.Errorf("CutEnd(%d) = %q, want %q", w, got.Render(true), want)
		}
		if len(got) > 0 && got[0].Style.GetForeground() != st.Accent.GetForeground() {
			t.Errorf("CutEnd(%d) lost the first span's style", w)
		}
	}
}

// FuzzKeyCell: whatever the parts and the width, the cell is never wider
// than asked, is valid UTF-8, holds no rune that could act on a terminal
// (stored keys can hold escape sequences), and is the whole key whenever
// the whole key fits; from KeyCellMin on, no part of shortKeyPart
// characters or fewer is cut.
func FuzzKeyCell(f *testing.F) {
	st := themes.NewStyles(themes.Dark())
	f.Add("dwk_queue_due", "invoices", 1796121459946.0, "52f270e7-1f2a-4c3d-839b-926c00b0d136", []byte{1, 2}, 45, uint8(15))
	f.Add("\x1b]52;c;aGk=\x07", "漢字\u202e", math.Copysign(0, -1), "\xff\xfe", []byte{}, 9, uint8(9))
	f.Add("e\u0301e\u0301", "👩‍👩‍👧", math.Inf(1), "\u200d", []byte{0}, 7, uint8(3))
	f.Fuzz(func(t *testing.T, a, b string, n float64, c string, raw []byte, w int, mask uint8) {
		w %= 120
		var k codec.Key
		add := []func(){
			func() { k = append(k, codec.String(a)) },
			func() { k = append(k, codec.String(b)) },
			func() { k = append(k, codec.Number(n)) },
			func() { k = append(k, codec.String(c)) },
			func() { k = append(k, codec.Bytes(raw)) },
			func() { k = append(k, codec.Bool(mask&32 != 0)) },
		}
		for i, fn := range add {
			if mask&(1<<i) != 0 {
				fn()
			}
		}
		got := KeyCell(st, k, w).Render(true)
		if n := ansi.StringWidth(got); n > max(w, 0) {
			t.Fatalf("%q is %d cells wide, asked %d", got, n, w)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("%q is not UTF-8: a rune was split", got)
		}
		for _, r := range got {
			if usertext.Unsafe(r) {
				t.Fatalf("%q holds %U raw", got, r)
			}
		}
		if whole := usertext.Sanitize(codec.Format(k)); ansi.StringWidth(whole) <= w && got != whole {
			t.Fatalf("the whole key %q fits %d cells, got %q", whole, w, got)
		}
		if w >= KeyCellMin(k) && len(k) > 0 {
			for _, p := range k {
				if kp := newKeyPart(p, st.Text); kp.width-kp.quotes() <= shortKeyPart && !strings.Contains(got, kp.text) {
					t.Fatalf("%q cuts the short part %s though %d cells were given (KeyCellMin %d)", got, kp.text, w, KeyCellMin(k))
				}
			}
		}
		if w > 1 && len(k) > 0 && !strings.HasPrefix(got, "[") {
			t.Fatalf("%q does not start as a key", got)
		}
	})
}

// TestKeyCellMin: in KeyCellMin cells every part of a key keeps a
// little of itself, its short parts whole.
func TestKeyCellMin(t *testing.T) {
	st := themes.NewStyles(themes.Dark())
	for _, c := range []struct {
		key  codec.Key
		want string
	}{
		{viewtest.KeyOf("users", "bob"), `["users", "bob"]`},
		{viewtest.KeyOf("dwk_queue_due", "emails", 1796121459950, "0b7c-11f0-9d41-3c7d1841"), `["dwk_q…", "emails", 17…50, "…1841"]`},
		{viewtest.KeyOf("sessions", "5d9cc0aa-9d9f-4e1b-9d9f-f2751d9fa3e2"), `["sessions", "…a3e2"]`},
		{viewtest.KeyOf("0123456789abcdefghij"), `["01…hij"]`},
	} {
		w := KeyCellMin(c.key)
		if got := KeyCell(st, c.key, w).Render(true); got != c.want {
			t.Errorf("KeyCell(%s, KeyCellMin %d) = %q, want %q", codec.Format(c.key), w, got, c.want)
		}
	}
}
