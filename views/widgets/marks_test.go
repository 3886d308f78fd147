package widgets

import (
	"testing"

	"kvdeck/codec"
)

func mark(id string) Mark {
	return Mark{ID: id, Key: codec.Key{codec.String(id)}, Stamp: "00000000000000000001"}
}

// TestMarksToggleAllClear: space toggles one row, ctrl+a marks every row
// shown and, when all were marked, clears; the order is the marking order.
func TestMarksToggleAllClear(t *testing.T) {
	var s Marks
	if !s.Toggle(mark("b")) || !s.Toggle(mark("a")) || s.Len() != 2 || s.Indicator() != "2 marked" {
		t.Fatalf("two marks: %d %q", s.Len(), s.Indicator())
	}
	if s.Toggle(mark("b")) || s.Has("b") || s.Glyph("a") != "✓" || s.Glyph("b") != " " {
		t.Fatal("toggling b again should unmark it")
	}
	s.All([]Mark{mark("a"), mark("c")})
	if got := s.Keys(); len(got) != 2 || codec.Format(got[1]) != `["c"]` {
		t.Fatalf("mark all: %v", got)
	}
	s.All([]Mark{mark("a"), mark("c")})
	if s.Len() != 0 || s.Indicator() != "" {
		t.Fatalf("mark all again clears: %d", s.Len())
	}
}
