// Package storetest is the test support shared by the packages that test
// against a store: a hand-moved clock at the reference instant, the real
// databases every suite runs against (an embedded file, a real sqld over
// HTTP and over WebSocket), a store closed with its test, a context with a
// deadline, key text, and the reference vectors beside the repository.
//
// It is imported from _test files only, and never imports the terminal
// packages, so that codec and store tests may use it.
package storetest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"kvdeck/codec"
)

// T0 is the clock of the reference vectors, 2026-01-02T00:00:00Z in epoch
// milliseconds: the instant public-reference.db was written at.
const T0 int64 = 1767312000000

// ctxTimeout bounds every store call a test makes through Ctx, so that a
// hung database fails the test instead of stalling the run.
const ctxTimeout = 60 * time.Second

// Clock is a store clock the test moves by hand; it is safe for
// concurrent use (stores read it from their own goroutines).
type Clock struct{ ms atomic.Int64 }

// NewClock returns a clock standing at ms (epoch milliseconds).
func NewClock(ms int64) *Clock {
	c := &Clock{}
	c.ms.Store(ms)
	return c
}

// Now returns the clock's time in epoch milliseconds; c.Now is a
// store.Clock.
func (c *Clock) Now() int64 { return c.ms.Load() }

// Set moves the clock to ms.
func (c *Clock) Set(ms int64) { c.ms.Store(ms) }

// Add moves the clock by d (whole milliseconds).
func (c *Clock) Add(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// Ctx returns a context that expires after a minute and is cancelled when
// the test ends.
func Ctx(t testing.TB) context.Context {
	t.Helper()
	return CtxTimeout(t, ctxTimeout)
}

// CtxTimeout is Ctx with another deadline, for tests that run longer.
func CtxTimeout(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return c
}

// Key parses key text (codec.Parse), failing the test when it is not a key.
func Key(t testing.TB, text string) codec.Key {
	t.Helper()
	k, err := codec.Parse(text)
	if err != nil {
		t.Fatalf("parse %s: %v", text, err)
	}
	return k
}
