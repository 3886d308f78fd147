package retry_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"kvdeck/internal/deptest"
	"kvdeck/internal/retry"
)

func TestStandardLibraryOnly(t *testing.T) { deptest.StdlibOnly(t, "kvdeck/internal/retry") }

// TestBackoffDoubles: First, doubling, capped at Max; Reset starts over.
func TestBackoffDoubles(t *testing.T) {
	b := retry.Backoff{First: 5 * time.Millisecond, Max: 100 * time.Millisecond}
	var got []time.Duration
	for range 7 {
		got = append(got, b.Next())
	}
	want := []time.Duration{5, 10, 20, 40, 80, 100, 100}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("waits %v, want %v ms", got, want)
		}
	}
	b.Reset()
	if w := b.Next(); w != 5*time.Millisecond {
		t.Errorf("after Reset: %v", w)
	}
}

// TestUntil: tries until success, an error not worth another try, the
// tries or the deadline run out, or the context ends; the last error
// comes back.
func TestUntil(t *testing.T) {
	busy, bad := errors.New("busy"), errors.New("bad")
	again := func(err error) bool { return errors.Is(err, busy) }
	fast := retry.Backoff{First: time.Microsecond, Max: time.Microsecond}
	for _, tc := range []struct {
		name  string
		p     retry.Policy
		errs  []error // what each try returns; past the end: busy
		ctx   func() context.Context
		tries int
		want  error
	}{
		{"succeeds on the third try", retry.Policy{Backoff: fast}, []error{busy, busy, nil}, context.Background, 3, nil},
		{"stops at an error not worth another", retry.Policy{Backoff: fast}, []error{busy, bad}, context.Background, 2, bad},
		{"stops after Tries", retry.Policy{Backoff: fast, Tries: 4}, nil, context.Background, 4, busy},
		{"stops before a wait past the deadline", retry.Policy{Backoff: retry.Backoff{First: time.Hour, Max: time.Hour}, Deadline: time.Now().Add(time.Minute)}, nil, context.Background, 1, busy},
		{"stops when the context ends", retry.Policy{Backoff: retry.Backoff{First: time.Hour, Max: time.Hour}}, nil, func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, 1, busy},
	} {
		n := 0
		err := retry.Until(tc.ctx(), tc.p, again, func() error {
			n++
			if n <= len(tc.errs) {
				return tc.errs[n-1]
			}
			return busy
		})
		if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) || n != tc.tries {
			t.Errorf("%s: %d tries, %v; want %d, %v", tc.name, n, err, tc.tries, tc.want)
		}
	}
}
