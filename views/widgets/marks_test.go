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

// TestMarksCount: a bulk menu names one marked row in the singular and
// any other count in the plural.
func TestMarksCount(t *testing.T) {
	var s Marks
	for _, c := range []struct {
		ids  []string
		want string
	}{{nil, "0 alarms"}, {[]string{"a"}, "1 alarm"}, {[]string{"b", "c"}, "3 alarms"}} {
		for _, id := range c.ids {
			s.Toggle(mark(id))
		}
		if got := s.Count("alarm"); got != c.want {
			t.Errorf("%d marked: %q, want %q", s.Len(), got, c.want)
		}
	}
}
