package race

import (
	"context"
	"sync"
)

// barrier makes lockstep workers meet: await returns once every worker
// still in the race has arrived. A worker that finishes (or fails) leaves,
// so the others never wait for it. A nil *barrier never waits, which keeps
// the worker loop free of "if lockstep" branches.
type barrier struct {
	mu      sync.Mutex
	parties int
	arrived int
	release chan struct{}
}

func newBarrier(parties int) *barrier {
	return &barrier{parties: parties, release: make(chan struct{})}
}

// await blocks until every party has arrived or ctx is done.
func (b *barrier) await(ctx context.Context) error {
	if b == nil {
		return ctx.Err()
	}
	b.mu.Lock()
	b.arrived++
	ch := b.release
	b.openIfFullLocked()
	b.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// leave removes one party for good, releasing the others if they were
// only waiting for it.
func (b *barrier) leave() {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.parties--
	b.openIfFullLocked()
	b.mu.Unlock()
}

func (b *barrier) openIfFullLocked() {
	if b.arrived > 0 && b.arrived >= b.parties {
		close(b.release)
		b.release = make(chan struct{})
		b.arrived = 0
	}
}
