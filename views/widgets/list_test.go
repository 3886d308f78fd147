package widgets

import (
	"testing"
)

// TestListCursorFollow: a reload puts the cursor back on the same id, or
// at the same position when the id is gone.
func TestListCursorFollow(t *testing.T) {
	var c ListCursor
	c.Set(1, []string{"a", "b", "c"}, 2)
	c.Follow([]string{"z", "y", "a", "b", "c"}, 2)
	if c.Cur != 3 || c.ID != "b" || c.off != 2 {
		t.Fatalf("after insert: %+v", c)
	}
	c.Follow([]string{"z", "y", "a", "c"}, 2)
	if c.Cur != 3 || c.ID != "c" {
		t.Fatalf("after removal: %+v", c)
	}
	c.Follow(nil, 2)
	if c.Cur != 0 || c.ID != "" {
		t.Fatalf("empty: %+v", c)
	}
}

// TestSelected: the row under the cursor, and none when the cursor is off
// the rows (before any, or after the rows shrank).
func TestSelected(t *testing.T) {
	rows := []string{"a", "b"}
	if r, ok := Selected(ListCursor{Cur: 1}, rows); !ok || r != "b" {
		t.Errorf("Selected(1) = %q, %v; want b, true", r, ok)
	}
	for _, cur := range []int{-1, 2} {
		if r, ok := Selected(ListCursor{Cur: cur}, rows); ok || r != "" {
			t.Errorf("Selected(%d) = %q, %v; want none", cur, r, ok)
		}
	}
	if got := IDs([]int{3, 1}, func(i int) string { return string(rune('a' + i)) }); len(got) != 2 || got[0] != "d" || got[1] != "b" {
		t.Errorf("IDs = %q; want [d b]", got)
	}
}

// TestCentered: the window keeps the cursor in its middle and stops at
// either end; a list shorter than the window shows whole.
func TestCentered(t *testing.T) {
	for _, c := range []struct{ cur, n, page, from, to int }{
		{0, 100, 10, 0, 10},
		{50, 100, 10, 45, 55},
		{99, 100, 10, 90, 100},
		{2, 4, 10, 0, 4},
		{0, 0, 10, 0, 0},
	} {
		if from, to := Centered(c.cur, c.n, c.page); from != c.from || to != c.to {
			t.Errorf("Centered(%d, %d, %d) = %d, %d; want %d, %d", c.cur, c.n, c.page, from, to, c.from, c.to)
		}
	}
}
