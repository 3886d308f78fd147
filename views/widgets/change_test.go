package widgets

import (
	"strings"
	"testing"
)

// TestUnchangedComparesNormalizedValueAndExpiry: spacing and number
// spelling do not make a change; another value, another expiry, a row
// appearing or going do.
func TestUnchangedComparesNormalizedValueAndExpiry(t *testing.T) {
	at, later := int64(1000), int64(2000)
	row := func(v string, exp *int64) *RowImage { return &RowImage{Value: []byte(v), ExpiresAt: exp} }
	for _, c := range []struct {
		before, after *RowImage
		same          bool
	}{
		{row(`{"a":1,"b":[1,2]}`, nil), row("{ \"a\": 1.0,\n \"b\": [1, 2] }", nil), true},
		{row(`{"a":1}`, &at), row(`{"a":1}`, &at), true},
		{row(`{"a":1}`, &at), row(`{"a":1}`, &later), false},
		{row(`{"a":1}`, &at), row(`{"a":1}`, nil), false},
		{row(`{"a":1}`, nil), row(`{"a":2}`, nil), false},
		{nil, row(`1`, nil), false},
		{row(`1`, nil), nil, false},
		{nil, nil, true},
	} {
		if got := Unchanged(c.before, c.after); got != c.same {
			t.Errorf("Unchanged(%+v, %+v) = %v, want %v", c.before, c.after, got, c.same)
		}
	}
}

// TestChangeLinesShowsWhatDiffers: a long value is cut to the part that
// differs, with shared text on each side; the expiry says unchanged or
// old → new; a row that appears or goes says so.
func TestChangeLinesShowsWhatDiffers(t *testing.T) {
	long := `{"name":"` + strings.Repeat("x", 200) + `","plan":"free","n":1}`
	lines := ChangeLines(&RowImage{Value: []byte(long)}, &RowImage{Value: []byte(strings.Replace(long, "free", "gold", 1))})
	if len(lines) != 2 || !strings.Contains(lines[0], `value   …xxxxxx","plan":"free","n":1} → …xxxxxx","plan":"gold","n":1}`) || len(lines[0]) > 120 {
		t.Errorf("value line %q", lines[0])
	}
	if lines[1] != "expires unchanged: never" {
		t.Errorf("expiry line %q", lines[1])
	}
	at := int64(1767312000000)
	lines = ChangeLines(&RowImage{Value: []byte(`1`)}, &RowImage{Value: []byte(`1`), ExpiresAt: &at})
	if lines[0] != "value   unchanged: 1" || lines[1] != "expires never → 2026-01-02T00:00:00Z" {
		t.Errorf("lines %q", lines)
	}
	if lines = ChangeLines(nil, &RowImage{Value: []byte(`1`)}); !strings.Contains(lines[0], "(no row) → 1") {
		t.Errorf("a new row: %q", lines)
	}
	if lines = ChangeLines(&RowImage{Value: []byte(`1`)}, nil); !strings.Contains(lines[0], "1 → (no row: deleted)") {
		t.Errorf("a deleted row: %q", lines)
	}
}
