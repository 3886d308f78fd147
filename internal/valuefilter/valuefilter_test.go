package valuefilter_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/internal/valuefilter"
	"kvdeck/store"
)

func entry(t *testing.T, key, value string) store.Entry {
	t.Helper()
	k := storetest.Key(t, key)
	return store.Entry{Raw: codec.MustEncode(k), Key: k, Value: []byte(value), Ver: 7}
}

// TestJq: select's rule (an output other than false or null), $key and
// $versionstamp, big integers kept exact, values that are not JSON never
// match, failures reported per value.
func TestJq(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		expr, value string
		match       bool
		fails       bool
	}{
		{`.attempts > 1`, `{"attempts":2}`, true, false},
		{`.attempts > 1`, `{"attempts":1}`, false, false},
		{`.missing`, `{"a":1}`, false, false},
		{`.a`, `{"a":false}`, false, false},
		{`.a`, `{"a":0}`, true, false},
		{`.[]`, `[null, false, 3]`, true, false},
		{`.[]`, `[null, false]`, false, false},
		{`empty`, `1`, false, false},
		{`. == 9007199254740993`, `9007199254740993`, true, false},
		{`$key | test("users")`, `1`, true, false},
		{`$versionstamp == "00000000000000000007"`, `1`, true, false},
		{`.a.b`, `{"a":"text"}`, false, true},
		{`error("no")`, `1`, false, true},
		{`.`, `not json`, false, false},
		{`.body.to | endswith("@example.com")`, `{"body":{"to":"a@example.com"}}`, true, false},
	} {
		m, err := valuefilter.Jq(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		ok, err := m.Match(ctx, entry(t, `["users", "a"]`, tc.value))
		var evalErr *valuefilter.EvalError
		if ok != tc.match || errors.As(err, &evalErr) != tc.fails || (err != nil && !tc.fails) {
			t.Errorf("%s on %s: %v, %v; want %v, failure %v", tc.expr, tc.value, ok, err, tc.match, tc.fails)
		}
	}
}

// TestBadFilter: every bad expression is refused with a message naming
// the problem (and the column of a syntax error), as ErrBadFilter.
func TestBadFilter(t *testing.T) {
	for expr, want := range map[string]string{
		``:                   "empty",
		`   `:                "empty",
		`.a |`:               `jq expression ".a |": unexpected EOF at column 5`,
		`.a ) .b`:            `unexpected token ")" at column`,
		`foo(1)`:             "function not defined: foo/1",
		`$nope`:              "variable not defined: $nope",
		`input`:              "input",
		`import "x" as x; .`: "",
		"\x1b[2J.":           `\x1b`,
	} {
		_, err := valuefilter.Jq(expr)
		if err == nil {
			if want == "input" || want == "" {
				continue // allowed to compile; they fail when run
			}
			t.Errorf("%q compiled", expr)
			continue
		}
		if !errors.Is(err, valuefilter.ErrBadFilter) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "bad filter") {
			t.Errorf("%q: %v, want ErrBadFilter naming %q", expr, err, want)
		}
	}
	if _, err := valuefilter.Contains(""); !errors.Is(err, valuefilter.ErrBadFilter) {
		t.Errorf("an empty substring: %v", err)
	}
}

// TestEndlessExpression: ctx stops an expression that never ends.
func TestEndlessExpression(t *testing.T) {
	m, err := valuefilter.Jq(`repeat(false)`)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { _, err := m.Match(ctx, entry(t, `["k"]`, `1`)); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("got %v, want the deadline", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the expression did not stop")
	}
}

// TestMemoryHungryExpression: an expression whose memory grows without
// end stops with ErrMemoryLimit long before its deadline (`def f: 1 + f; f`
// reached 2 GB in 5 s, and `list --where` crashed
// with Go's fatal out-of-memory error). Ordinary expressions over a large
// value stay under the bound.
func TestMemoryHungryExpression(t *testing.T) {
	const limit = 64 << 20
	for _, expr := range []string{`def f: 1 + f; f`} {
		m, err := valuefilter.Jq(expr)
		if err != nil {
			t.Fatal(err)
		}
		m.MemoryLimit = limit
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		start := time.Now()
		_, err = m.Match(ctx, entry(t, `["k"]`, `1`))
		cancel()
		t.Logf("%s: %v after %s", expr, err, time.Since(start).Round(time.Millisecond))
		if !errors.Is(err, valuefilter.ErrMemoryLimit) {
			t.Errorf("%s: got %v after %s, want ErrMemoryLimit", expr, err, time.Since(start))
		}
	}
	big := `[` + strings.Repeat(`{"n":1,"s":"xxxxxxxxxxxxxxxx"},`, 20000) + `{"n":2}]`
	m, err := valuefilter.Jq(`[.[] | select(.n == 2)] | length == 1`)
	if err != nil {
		t.Fatal(err)
	}
	m.MemoryLimit = limit
	if ok, err := m.Match(context.Background(), entry(t, `["big"]`, big)); !ok || err != nil {
		t.Errorf("a filter over a %d-byte value: %v, %v; want a match", len(big), ok, err)
	}
}

// TestContains: a byte substring of the stored text, JSON or not.
func TestContains(t *testing.T) {
	m, err := valuefilter.Contains(`"holder"`)
	if err != nil {
		t.Fatal(err)
	}
	for value, want := range map[string]bool{`{"holder":"x"}`: true, `{"h":"holders"}`: false, `raw "holder" text`: true} {
		if ok, err := m.Match(context.Background(), entry(t, `["k"]`, value)); ok != want || err != nil {
			t.Errorf("%s: %v, %v", value, ok, err)
		}
	}
}

// TestSearch: pages of matches on a real store (file and sqld) continue
// with their cursor, bounded by matches and by rows examined, forward and
// in reverse, failures counted.
func TestSearch(t *testing.T) {
	storetest.EachStore(t, storetest.FileAndSQLD(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		ctx := storetest.Ctx(t)
		a := s.Atomic()
		for i := 0; i < 1200; i++ {
			v := fmt.Sprintf(`{"n":%d}`, i)
			if i%100 == 50 {
				v = `"a string"`
			}
			a.Set(codec.Key{codec.String("s"), codec.Number(float64(i))}, []byte(v))
		}
		if _, err := a.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		m, err := valuefilter.Jq(`.n % 7 == 0`)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for i := 0; i < 1200; i++ {
			if i%7 == 0 && i%100 != 50 {
				want = append(want, fmt.Sprint(i))
			}
		}
		for _, reverse := range []bool{false, true} {
			for _, bound := range [][2]int{{10, 0}, {1000, 0}, {5, 37}, {1000, 501}} {
				opts := store.ListOptions{Prefix: storetest.Key(t, `["s"]`), Reverse: reverse}
				var got []string
				failed, scanned, pages := 0, 0, 0
				for {
					p, err := valuefilter.Search(ctx, s, opts, m, bound[0], bound[1])
					if err != nil {
						t.Fatal(err)
					}
					pages++
					if len(p.Entries) > bound[0] || (bound[1] > 0 && p.Scanned > bound[1]) {
						t.Fatalf("page of %d matches after %d rows, bounds %v", len(p.Entries), p.Scanned, bound)
					}
					for _, e := range p.Entries {
						got = append(got, fmt.Sprint(e.Key[1]))
					}
					failed, scanned = failed+p.Failed, scanned+p.Scanned
					if p.Cursor == "" {
						break
					}
					opts.Cursor = p.Cursor
				}
				w := want
				if reverse {
					w = make([]string, len(want))
					for i := range want {
						w[i] = want[len(want)-1-i]
					}
				}
				if strings.Join(got, ",") != strings.Join(w, ",") || failed != 12 || scanned != 1200 {
					t.Errorf("reverse %v bounds %v: %d matches, %d failed, %d scanned in %d pages", reverse, bound, len(got), failed, scanned, pages)
				}
			}
		}
		// A substring is tested by the database: only the matches are read
		// (and examined), in every bound and direction.
		sub, err := valuefilter.Contains(`"n":7`)
		if err != nil {
			t.Fatal(err)
		}
		for _, reverse := range []bool{false, true} {
			opts := store.ListOptions{Prefix: storetest.Key(t, `["s"]`), Reverse: reverse}
			var got []string
			scanned := 0
			for {
				p, err := valuefilter.Search(ctx, s, opts, sub, 4, 0)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range p.Entries {
					got = append(got, fmt.Sprint(e.Key[1]))
				}
				if scanned += p.Scanned; p.Cursor == "" {
					break
				}
				opts.Cursor = p.Cursor
			}
			// The values holding "n":7, in the listing's order.
			var want []string
			for n := 0; n < 1200; n++ {
				if n%100 != 50 && strings.Contains(fmt.Sprintf(`{"n":%d}`, n), `"n":7`) {
					want = append(want, fmt.Sprint(n))
				}
			}
			if reverse {
				slices.Reverse(want)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") || scanned != len(got) {
				t.Errorf("reverse %v: contains \"n\":7: %d matches after %d rows examined:\n%s", reverse, len(got), scanned, strings.Join(got, ","))
			}
		}
	})
}

// TestOneStepPastTheBudget: an operation that would make one string,
// array or number larger than the memory budget in a single allocation
// (a string repeated 2e9 times, two large strings joined) is refused with
// ErrMemoryLimit before it allocates: what the
// evaluation allocated stays under the budget. Before, the heap watcher
// saw only the finished allocation: `"x" * 2e9` peaked at 1.97 GB under
// a 512 MiB budget. Operators keep their results and their order of
// outputs otherwise.
func TestOneStepPastTheBudget(t *testing.T) {
	const limit = 64 << 20
	for _, c := range []struct{ expr, value string }{
		{`"x" * 3e8`, `1`},
		{`3e8 * "x"`, `1`},
		{`("x" * 4e7) as $a | $a + $a`, `1`},
		{`.s *= 3e8`, `{"s":"x"}`},
		{`("y" * 4e7) as $a | {s: $a} | .s += $a`, `1`},
		{`"x" * 2e9`, `1`},
	} {
		m, err := valuefilter.Jq(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		m.MemoryLimit = limit
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = m.Match(context.Background(), entry(t, `["k"]`, c.value))
		runtime.ReadMemStats(&after)
		allocated := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %v; %d MiB allocated", c.expr, err, allocated>>20)
		if !errors.Is(err, valuefilter.ErrMemoryLimit) || allocated > limit {
			t.Errorf("%s: %v, %d MiB allocated; want ErrMemoryLimit under %d MiB", c.expr, err, allocated>>20, limit>>20)
		}
	}
	for _, c := range []struct{ expr, value string }{
		{`[(1,2) * (10,20)] == [10,20,20,40]`, `1`},
		{`[(1,2) + (10,20)] == [11,12,21,22]`, `1`},
		{`("ab" * 3) + "c" == "abababc"`, `1`},
		{`.a *= 2 | .a += 1 | .a == 7`, `{"a":3}`},
		{`({"a":{"b":1}} * {"a":{"c":2}}) == {"a":{"b":1,"c":2}}`, `1`},
		{`[1] + [2] + null == [1,2]`, `1`},
		{`(100000000000000000000 * 100000000000000000000 | tostring) == "10000000000000000000000000000000000000000"`, `1`},
		{`"x" * -1 == null`, `1`},
		{`def f(a; b): a * b; f(3; 4) == 12`, `1`},
	} {
		m, err := valuefilter.Jq(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := m.Match(context.Background(), entry(t, `["k"]`, c.value)); !ok || err != nil {
			t.Errorf("%s on %s: %v, %v; want a match", c.expr, c.value, ok, err)
		}
	}
}
