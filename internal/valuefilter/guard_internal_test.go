package valuefilter

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
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

// compiled is src compiled with gojq's operators, or (guarded) with the
// checked ones under the default budget.
func compiled(tb testing.TB, src string, guarded bool) *gojq.Code {
	tb.Helper()
	q, err := gojq.Parse(src)
	if err != nil {
		tb.Fatal(err)
	}
	var opts []gojq.CompilerOption
	if guarded {
		a, err := newArith(func() int64 { return DefaultMemoryLimit })
		if err != nil {
			tb.Fatal(err)
		}
		if err := guard(q); err != nil {
			tb.Fatal(err)
		}
		opts = a.options()
	}
	code, err := gojq.Compile(q, opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return code
}

// FuzzCheckedArith: the checked `*` and `+` give what gojq's operators
// give (the same value of the same type, or an error both ways) for any
// two JSON operands read as Match reads them (json.Number kept), and
// generators' outputs in the same order.
func FuzzCheckedArith(f *testing.F) {
	for _, s := range [][2]string{{"2", "3"}, {"9223372036854775807", "2"}, {"-1", "-9223372036854775808"}, {"1.5", "2"},
		{`"ab"`, "3"}, {"3", `"ab"`}, {`"ab"`, `"cd"`}, {"null", "1"}, {"null", `"x"`}, {"[1]", "[2]"}, {`{"a":{"b":1}}`, `{"a":{"c":2}}`},
		{"100000000000000000000", "3"}, {"1e500", "2"}, {`"x"`, "-1"}, {"true", "1"}, {"null", "null"}, {"2", "-1"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var l, r any
		for _, p := range []struct {
			text string
			v    *any
		}{{a, &l}, {b, &r}} {
			dec := json.NewDecoder(strings.NewReader(p.text))
			dec.UseNumber()
			if dec.Decode(p.v) != nil || dec.More() {
				return
			}
		}
		if s, ok := l.(string); ok && len(s) > 64 {
			return
		}
		if s, ok := r.(string); ok && len(s) > 64 {
			return
		}
		for _, src := range []string{`[.[0] * .[1]]`, `[.[0] + .[1]]`, `[(.[0], .[1]) * (.[1], .[0])]`, `[(.[0], .[1]) + (.[1], .[0])]`, `.[0] as $x | {v: .[1]} | .v *= $x | .v += $x`} {
			plain, _ := compiled(t, src, false).Run([]any{l, r}).Next()
			checked, _ := compiled(t, src, true).Run([]any{l, r}).Next()
			pe, perr := plain.(error)
			ce, cerr := checked.(error)
			switch {
			case perr || cerr:
				if perr != cerr || pe.Error() != ce.Error() {
					t.Fatalf("%s on %s, %s: %v, checked %v", src, a, b, plain, checked)
				}
			case fmt.Sprintf("%#v", plain) != fmt.Sprintf("%#v", checked): // values and their Go types
				t.Fatalf("%s on %s, %s: %#v, checked %#v", src, a, b, plain, checked)
			}
		}
	})
}

// BenchmarkCheckedArith: an expression of two operators on a stored
// value, run as Match runs it (a cancellable context), with gojq's
// operators ("operator") and with the checked ones ("checked").
func BenchmarkCheckedArith(b *testing.B) {
	var v any
	dec := json.NewDecoder(strings.NewReader(`{"n":12345,"s":"abc","t":"def"}`))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		b.Fatal(err)
	}
	for _, src := range []string{`.n * 2 + 1 < 0`, `.s + .t == "x"`} {
		for _, guarded := range []bool{false, true} {
			name := map[bool]string{false: "operator", true: "checked"}[guarded]
			b.Run(src+"/"+name, func(b *testing.B) {
				code := compiled(b, src, guarded)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				b.ReportAllocs()
				for b.Loop() {
					it := code.RunWithContext(ctx, v)
					for {
						if _, ok := it.Next(); !ok {
							break
						}
					}
				}
			})
		}
	}
}
