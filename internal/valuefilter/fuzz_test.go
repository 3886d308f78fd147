package valuefilter_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/valuefilter"
	"kvdeck/store"
)

// FuzzJq: any text either compiles or is refused as ErrBadFilter with a
// one-line message; a compiled expression runs on a few values without
// panicking and stops at its deadline.
func FuzzJq(f *testing.F) {
	for _, s := range []string{`.`, `.a > 1`, `.a |`, `select(.x)`, `$key`, `[.[] | .n] | add`, `"\u0000"`, `def f: f; f`, `.[1:`, `@base64d`, `input`, `$__loc__`, `limit(3; repeat(1))`, `reduce range(3) as $i (0; . + $i)`, `ltrimstr("a")`, `env`} {
		f.Add(s)
	}
	values := []string{`null`, `{"a":2,"n":[1,2]}`, `"text"`, `[1,"x",null]`, `123456789012345678901234567890`}
	k := codec.Key{codec.String("k")}
	f.Fuzz(func(t *testing.T, expr string) {
		m, err := valuefilter.Jq(expr)
		if err != nil {
			if !errors.Is(err, valuefilter.ErrBadFilter) || strings.ContainsAny(err.Error(), "\n\x1b") {
				t.Fatalf("%q: %v", expr, err)
			}
			return
		}
		for _, v := range values {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			_, _ = m.Match(ctx, store.Entry{Raw: codec.MustEncode(k), Key: k, Value: []byte(v)})
			cancel()
		}
	})
}
