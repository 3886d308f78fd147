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
