// Package retry is kvdeck's one way to wait and try again: a doubling
// wait (Backoff), a sleep that ends with its context (Sleep), and a loop
// of tries (Until). Standard library only: the engine uses it too.
package retry

import (
	"context"
	"time"
)

// Backoff is a wait that starts at First and doubles after each wait, up
// to Max. Its zero wait is the first: a Backoff is ready as declared.
type Backoff struct {
	First, Max time.Duration
	last       time.Duration // the last wait; 0: none yet
}

// Next is the next wait: First, then twice the last, at most Max.
func (b *Backoff) Next() time.Duration {
	b.last = min(max(2*b.last, b.First), b.Max)
	return b.last
}

// Reset starts the waits again from First (the thing answered again).
func (b *Backoff) Reset() { b.last = 0 }

// Failed reports whether a wait was taken since the start or the last
// Reset.
func (b *Backoff) Failed() bool { return b.last > 0 }

// Wait waits d and returns nil, or ctx's error when ctx ended first (at
// once when d is not positive).
func Wait(ctx context.Context, d time.Duration) error {
	if !Sleep(ctx, d) {
		return ctx.Err()
	}
	return nil
}

// Sleep waits d, and reports false when ctx ended first (at once when d
// is not positive).
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// Policy bounds Until's tries.
type Policy struct {
	Backoff
	// Deadline, when not zero, is the time no wait may end after.
	Deadline time.Time
	// Tries, when not zero, is how many tries at most.
	Tries int
}

// Until runs try until it succeeds, again says its error is not worth
// another try, p's bounds are reached, or ctx ends; it returns try's last
// error (nil on success).
func Until(ctx context.Context, p Policy, again func(error) bool, try func() error) error {
	for n := 1; ; n++ {
		err := try()
		if err == nil || !again(err) || (p.Tries > 0 && n >= p.Tries) {
			return err
		}
		wait := p.Next()
		if !p.Deadline.IsZero() && time.Now().Add(wait).After(p.Deadline) {
			return err
		}
		if !Sleep(ctx, wait) {
			return err
		}
	}
}
