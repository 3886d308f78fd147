// Package valuefilter selects stored entries by their values: a jq
// expression (github.com/itchyny/gojq) or a substring. `kvdeck list
// --where/--contains` and the TUI's value search share it.
package valuefilter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"

	"kvdeck/codec"
	"kvdeck/store"
)

// ErrBadFilter is what every error of Jq and Contains is (errors.Is): the
// expression or substring the user typed cannot be used.
var ErrBadFilter = errors.New("bad filter")

// badFilter is an error of Jq or Contains: its message names the problem
// without repeating "bad filter".
type badFilter struct{ msg string }

func (e *badFilter) Error() string        { return e.msg }
func (e *badFilter) Is(target error) bool { return target == ErrBadFilter }

func bad(format string, args ...any) error { return &badFilter{msg: fmt.Sprintf(format, args...)} }

// Matcher decides whether an entry matches. It is safe for concurrent
// use.
type Matcher struct {
	code *gojq.Code // nil for a substring
	sub  []byte
	text string // what the user gave, for messages
	// MemoryLimit bounds the heap growth of one evaluation (0:
	// DefaultMemoryLimit); past it Match returns ErrMemoryLimit.
	MemoryLimit int64
}

// Jq compiles a jq expression. An entry matches when the expression,
// run on the entry's value, yields at least one output that is neither
// false nor null (jq's select). Two variables name the entry: $key (its
// key as text, e.g. ["users", "alice"]) and $versionstamp. The
// environment, modules and input functions are not available.
func Jq(expr string) (*Matcher, error) {
	if strings.TrimSpace(expr) == "" {
		return nil, bad("the jq expression is empty (. matches every value)")
	}
	q, err := gojq.Parse(expr)
	if err != nil {
		var pe *gojq.ParseError
		if errors.As(err, &pe) {
			return nil, bad("jq expression %s: %v at column %d", quote(expr), err, column(expr, pe.Offset))
		}
		return nil, bad("jq expression %s: %v", quote(expr), err)
	}
	m := &Matcher{text: expr}
	a, err := newArith(m.memoryLimit)
	if err == nil {
		err = guard(q)
	}
	if err != nil {
		return nil, bad("jq expression %s: %v", quote(expr), err)
	}
	if m.code, err = gojq.Compile(q, append(a.options(), gojq.WithVariables([]string{"$key", "$versionstamp"}))...); err != nil {
		return nil, bad("jq expression %s: %v", quote(expr), err)
	}
	return m, nil
}

// Contains matches the entries whose stored value text (JSON as stored,
// or the raw text of a value that is not JSON) contains sub, byte for
// byte.
func Contains(sub string) (*Matcher, error) {
	if sub == "" {
		return nil, bad("the substring is empty")
	}
	return &Matcher{sub: []byte(sub), text: sub}, nil
}

// Narrow returns opts with what the server can filter itself: for a
// substring, only the rows whose value contains it are read (Match still
// decides; the server's filter is the same test, so it drops no match).
// A jq expression leaves opts as they are.
func (m *Matcher) Narrow(opts store.ListOptions) store.ListOptions {
	if m.code == nil {
		opts.ValueContains = m.sub
	}
	return opts
}

// Narrows reports whether Narrow has the server do the whole test.
func (m *Matcher) Narrows() bool { return m.code == nil }

// String is the filter as the user gave it.
func (m *Matcher) String() string { return m.text }

// EvalError is a jq expression's failure on one value (e.g. indexing a
// number): the entry does not match, and a caller may say how many did
// this.
type EvalError struct {
	Err error
}

func (e *EvalError) Error() string { return "jq: " + e.Err.Error() }
func (e *EvalError) Unwrap() error { return e.Err }

// Match reports whether e matches. A value that is not JSON never matches
// a jq expression. An expression that fails on this value returns false
// and an *EvalError; ctx ending returns its error (an endless expression
// stops so), and an evaluation that grows the heap past MemoryLimit
// returns ErrMemoryLimit (one that recurses without end stops so).
func (m *Matcher) Match(ctx context.Context, e store.Entry) (bool, error) {
	if m.code == nil {
		return bytes.Contains(e.Value, m.sub), nil
	}
	if !json.Valid(e.Value) {
		return false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(e.Value))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return false, nil
	}
	key := ""
	if e.KeyErr == nil {
		key = codec.Format(e.Key)
	}
	bounded, stop := memoryBound(ctx, m.memoryLimit())
	defer stop()
	iter := m.code.RunWithContext(bounded, v, key, e.Versionstamp())
	for {
		out, ok := iter.Next()
		if !ok {
			return false, nil
		}
		if err, isErr := out.(error); isErr {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			if cause := context.Cause(bounded); errors.Is(cause, ErrMemoryLimit) {
				return false, cause
			}
			if errors.Is(err, ErrMemoryLimit) {
				return false, err // one step past the budget, refused (guard.go)
			}
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return false, nil // halt: no more outputs
			}
			return false, &EvalError{Err: err}
		}
		if out != nil && out != false {
			return true, nil
		}
	}
}

// memoryLimit is MemoryLimit, or DefaultMemoryLimit when it is not set.
func (m *Matcher) memoryLimit() int64 {
	if m.MemoryLimit <= 0 {
		return DefaultMemoryLimit
	}
	return m.MemoryLimit
}

// column is the 1-based column (in runes) of byte offset off in s.
func column(s string, off int) int {
	if off > len(s) {
		off = len(s)
	}
	return len([]rune(s[:off])) + 1
}

// quote shows an expression on one line, control characters escaped.
func quote(s string) string {
	const max = 80
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return strconv.Quote(s)
}
