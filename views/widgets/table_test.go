package widgets

import (
	"reflect"
	"testing"
)

// TestColumnTable: columns give way in their drop order, and the
// flexible one takes the rest.
func TestColumnTable(t *testing.T) {
	cols := []Column{{Title: "A", Width: 4}, {Title: "B", Width: 6, Drop: 2}, {Title: "C", Width: 0}, {Title: "D", Width: 6, Drop: 1}}
	for _, c := range []struct {
		w     int
		show  []bool
		flexW int
	}{
		{40, []bool{true, true, true, true}, 21},
		{30, []bool{true, true, true, true}, 11},
		{26, []bool{true, true, true, false}, 14},
		{18, []bool{true, false, true, false}, 13},
		{6, []bool{true, false, true, false}, 1},
	} {
		tb := NewTable(cols, c.w)
		if !reflect.DeepEqual(tb.show, c.show) || tb.FlexW != c.flexW {
			t.Errorf("width %d: show %v flex %d, want %v %d", c.w, tb.show, tb.FlexW, c.show, c.flexW)
		}
	}
}
