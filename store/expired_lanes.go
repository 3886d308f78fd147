package store

import (
	"bytes"
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// A whole-store listing on a file reads its windows of rowids on two
// connections at once (lanes: the lock-free ones of a rollback-journal
// file, lockFreeLanes; the pool's on a WAL file), so that both cores
// work: SQLite runs in the goroutine that calls it. Each lane claims the
// next stride of rowids (a full window) and reads it in windows, shorter
// beside a writer (readWindowed); a window's summary names the table's
// next rowid, which moves the claims past a gap that deletes left. Each
// lane holds its windows' rows and orders them by key at its end; the
// listing merges the lanes' orders. The windows and their summaries are
// the ones one reader's walk would read, in another order: the totals
// add up the same, and the rows are handed over in key order as one
// reader hands them. Past maxSortedBytes held, the listing walks the
// range again in key windows, one reader (listInOrder). A listing of the
// first rows (the Sweep tab's preview), a key range, a server's listing
// and a machine of one core read as one reader.

// errHeldTooMuch: the lanes hold more than maxSortedBytes.
var errHeldTooMuch = errors.New("store: a listing holds too many rows to order")

// twoLanes reports whether a whole-store listing reads on two lanes: on
// a file, where a second core works beside the first.
func (s *Store) twoLanes() bool {
	return s.conn.traits().ownsFiles && runtime.GOMAXPROCS(0) > 1 && !s.knobs.oneLane
}

// rowidClaims hands out a whole-store listing's strides of rowids.
type rowidClaims struct {
	mu sync.Mutex
	// next is the first rowid not claimed; end: no rowid is past the
	// claims.
	next   int64
	end    bool
	stride int64
}

// claim returns the next stride, rowids lo to hi; ok is false past the
// table's end.
func (c *rowidClaims) claim() (lo, hi int64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.end {
		return 0, 0, false
	}
	lo = c.next
	if lo > math.MaxInt64-c.stride+1 {
		hi, c.end = math.MaxInt64, true
	} else {
		hi = lo + c.stride - 1
		c.next = hi + 1
	}
	return lo, hi, true
}

// past moves the claims to the table's next rowid after a stride (nil:
// none, the end).
func (c *rowidClaims) past(next *int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if next == nil {
		c.end = true
		return
	}
	c.next = max(c.next, *next)
}

// laneList is what one lane of a listing read: its totals, and its rows
// in key order.
type laneList struct {
	t     expiredTotals
	order []*expiredRow
	err   error
}

// listLanes is listExpired of the whole store (x) on two lanes, every
// row handed to fn in key order.
func (s *Store) listLanes(ctx context.Context, x *expiredScan, fn func(Entry) error) (expiredTotals, error) {
	claims := &rowidClaims{next: x.rowid, stride: int64(x.win.max)}
	var held atomic.Int64
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lanes := make([]laneList, lockFreeLanes)
	// first is the error that stopped the lanes (the others' then is
	// their cancellation).
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for i := range lanes {
		y := x.onLane(i)
		wg.Go(func() {
			if lanes[i] = y.walkClaims(lctx, claims, &held); lanes[i].err != nil {
				once.Do(func() { first = lanes[i].err })
				cancel()
			}
		})
	}
	wg.Wait()
	var t expiredTotals
	switch {
	case errors.Is(first, errHeldTooMuch) || noRowid(first):
		return s.listInOrder(ctx, x.inKeyOrder(), 0, fn)
	case first != nil:
		return t, first
	}
	orders := make([][]*expiredRow, len(lanes))
	for i, l := range lanes {
		t.add(expiredWindow{expired: l.t.expired, liveByReal: l.t.liveByReal, next: l.t.next})
		orders[i] = l.order
	}
	return t, mergeKeys(orders, func(r *expiredRow) error { return fn(r.entry()) })
}

// onLane is a copy of the scan x (at its start) for a lane of a listing:
// its own rows, arena and window, its statements on lane's connection.
func (x *expiredScan) onLane(lane int) *expiredScan {
	y := *x
	win := *x.win
	win.lane = lane
	y.win, y.rows, y.arena, y.claimed = &win, nil, byteArena{}, true
	return &y
}

// walkClaims reads strides of rowids until none is left, holding the
// expired rows (held counts the bytes the lanes hold).
func (x *expiredScan) walkClaims(ctx context.Context, claims *rowidClaims, held *atomic.Int64) laneList {
	var l laneList
	var windows [][]expiredRow
	for {
		lo, hi, ok := claims.claim()
		if !ok {
			break
		}
		x.rowid, x.claimEnd, x.done = lo, hi, false
		for !x.done && x.rowid <= hi {
			w, err := x.next(ctx)
			if err != nil {
				l.err = err
				return l
			}
			l.t.add(w)
			if len(w.rows) == 0 {
				continue
			}
			size := 0
			for _, r := range w.rows {
				size += r.size()
			}
			if held.Add(int64(size)) > int64(x.s.sortedBytes()) {
				l.err = errHeldTooMuch
				return l
			}
			windows = append(windows, x.rows)
			x.rows = make([]expiredRow, 0, len(x.rows)+len(x.rows)/4+16)
		}
		if x.done {
			claims.past(nil)
		} else {
			claims.past(&x.rowid)
		}
	}
	l.order = inKeyOrder(windows)
	return l
}

// mergeKeys hands fn the rows of orders, each in key order, in key order.
func mergeKeys(orders [][]*expiredRow, fn func(*expiredRow) error) error {
	for {
		min := -1
		for i, o := range orders {
			if len(o) > 0 && (min < 0 || bytes.Compare(o[0].k.b, orders[min][0].k.b) < 0) {
				min = i
			}
		}
		if min < 0 {
			return nil
		}
		if err := fn(orders[min][0]); err != nil {
			return err
		}
		orders[min] = orders[min][1:]
	}
}

// inKeyOrder returns the rows of every window in the order of their keys
// (sorting pointers: a row moved costs several times a pointer).
func inKeyOrder(windows [][]expiredRow) []*expiredRow {
	n := 0
	for _, rows := range windows {
		n += len(rows)
	}
	order := make([]*expiredRow, 0, n)
	for _, rows := range windows {
		for i := range rows {
			order = append(order, &rows[i])
		}
	}
	slices.SortFunc(order, func(a, b *expiredRow) int { return bytes.Compare(a.k.b, b.k.b) })
	return order
}
