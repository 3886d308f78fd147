package valuefilter

import (
	"context"
	"errors"
	"fmt"
	"runtime/metrics"
	"time"
)

// DefaultMemoryLimit bounds what one jq evaluation may add to the heap: a
// filter over a value of a few megabytes needs a small part of it, while
// `def f: 1 + f; f` reached 2 GB in five seconds and then Go's fatal
// out-of-memory crash. A time bound alone cannot stop
// that: memory is checked as well.
const DefaultMemoryLimit = 512 << 20

// ErrMemoryLimit ends an evaluation whose heap growth passed the limit.
// It is not an EvalError: the expression, not one value, is at fault, so
// callers stop as they do for a cancelled context.
var ErrMemoryLimit = errors.New("jq: the expression used too much memory")

// watchStart is how long an evaluation runs before its memory is
// watched: almost every evaluation ends well before, and pays only for a
// timer.
const watchStart = 2 * time.Millisecond

// watchEvery is how often a watched evaluation's heap is sampled; at the
// 400 MB/s seen in the issue, a sample period lets the heap pass the limit
// by a few megabytes.
const watchEvery = 2 * time.Millisecond

const heapMetric = "/memory/classes/heap/objects:bytes"

// heapBytes is the heap in use by objects now (runtime/metrics reads it
// without stopping the world, unlike runtime.ReadMemStats).
func heapBytes() int64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// memoryBound returns a context that is cancelled with cause
// ErrMemoryLimit when the heap grows by more than limit while fn's
// evaluation runs, and a stop function to call when it is done. The
// watching goroutine starts only after watchStart.
func memoryBound(ctx context.Context, limit int64) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	base := heapBytes()
	done := make(chan struct{})
	timer := time.AfterFunc(watchStart, func() {
		tick := time.NewTicker(watchEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				if grown := heapBytes() - base; grown > limit {
					cancel(fmt.Errorf("%w (more than %d MiB; stopped)", ErrMemoryLimit, limit>>20))
					return
				}
			}
		}
	})
	return ctx, func() {
		timer.Stop()
		close(done)
		cancel(nil)
	}
}
