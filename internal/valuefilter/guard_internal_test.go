package valuefilter

import (
	"math/big"
	"testing"
)

// TestResultSize: the sizes the checked operators compare with the
// budget, for each kind of operand that can make a large value in one
// step, and none for the others.
func TestResultSize(t *testing.T) {
	huge := new(big.Int).Lsh(big.NewInt(1), 8<<20) // 8 Mibit: 1 MiB
	for _, c := range []struct {
		op   string
		l, r any
		want int64
	}{
		{"*", "ab", 3, 6},
		{"*", 2.5, "ab", 5},
		{"*", "ab", -1, 0},
		{"*", "ab", 1e300, 2 * (1<<31 - 1)},
		{"*", huge, huge, 2 << 20},
		{"*", huge, 3, (8<<20 + 64) / 8},
		{"*", 3, 4, 0},
		{"*", map[string]any{}, map[string]any{}, 0},
		{"+", "ab", "cde", 5},
		{"+", []any{1, 2}, []any{3}, 3 * anySize},
		{"+", map[string]any{"a": 1}, map[string]any{"b": 1}, 2 * 4 * anySize},
		{"+", "ab", nil, 0},
		{"+", 1, 2, 0},
		{"-", "ab", "ab", 0},
	} {
		if got, _ := resultSize(c.op, c.l, c.r); got != c.want {
			t.Errorf("%T %s %T: %d, want %d", c.l, c.op, c.r, got, c.want)
		}
	}
}
