package history

import (
	"bytes"
	"context"
	"sort"

	"kvdeck/store"
)

// KeyState is a key's physical row at a point (nil: no row) and the
// store's seq there.
type KeyState struct {
	Seq int64
	Row *store.RawRow
}

// sameRow reports whether two states hold the same row (or none).
func sameRow(a, b KeyState) bool {
	switch {
	case a.Row == nil || b.Row == nil:
		return a.Row == nil && b.Row == nil
	case a.Row.Ver != b.Row.Ver || !bytes.Equal(a.Row.Value, b.Row.Value):
		return false
	case (a.Row.ExpiresAt == nil) != (b.Row.ExpiresAt == nil):
		return false
	}
	return a.Row.ExpiresAt == nil || *a.Row.ExpiresAt == *b.Row.ExpiresAt
}

// unchanged reports whether a key with state a at one point and b at a
// later one kept a's row at every point between, without reading them.
// Within one life of a database seq only grows and a set gives its keys
// the new seq, so: the same row (same ver) at both ends was never
// replaced in between (a set would have given a higher ver, and a delete
// could be undone only by a set); no row at both ends with seq unmoved
// means no set happened at all in between. Where seq went down (a
// database restored over the store), nothing is assumed.
func unchanged(a, b KeyState) bool {
	if b.Seq < a.Seq || !sameRow(a, b) {
		return false
	}
	return a.Row != nil || a.Seq == b.Seq
}

// KeyChange is the key's row from one point on.
type KeyChange struct {
	// Index is the first point read that holds the row; Point is it.
	Index int
	Point Point
	// After is the last point read that holds the row before (-1 for the
	// first change): the change was made after point After and by point
	// Index. Index == After+1 when the change is pinned to two adjacent
	// points.
	After int
	// Row is the row (nil: no row); Seq the store's seq at Index.
	Row *store.RawRow
	Seq int64
}

// Unread is a run of points not read (the read budget ran out): the key
// had one state at First and another, or the same with sets between
// that may have touched it, at Last.
type Unread struct{ First, Last int }

// KeyHistoryResult is a key's history across a source's points.
type KeyHistoryResult struct {
	Changes []KeyChange
	// Reads counts the points read; Of the points in all.
	Reads, Of int
	// Unread are the stretches left unsettled when maxReads ran out.
	Unread []Unread
}

// KeyHistory finds the points where a key's row changed, reading as few
// points as it can: the first and the last, then the middle of every
// stretch whose ends differ (bisection), skipping a stretch its ends
// settle (unchanged). A stretch with no row at either end but sets in
// between may hide a row that came and went: such stretches are read
// after every stretch whose ends differ, while maxReads allows (0: no
// bound). read(i) gives the key's state at points[i].
func KeyHistory(ctx context.Context, points []Point, maxReads int, read func(ctx context.Context, i int) (KeyState, error)) (res KeyHistoryResult, err error) {
	res.Of = len(points)
	if len(points) == 0 {
		return res, nil
	}
	b := &bisection{ctx: ctx, read: read, states: map[int]KeyState{}}
	defer func() { res.Reads = b.reads }() // on every return, errors too
	last := len(points) - 1
	if err := b.load(0); err != nil {
		return res, err
	}
	if err := b.load(last); err != nil {
		return res, err
	}
	b.push(0, last)
	for len(b.differ)+len(b.rowless) > 0 {
		if maxReads > 0 && b.reads >= maxReads {
			break
		}
		u := b.next()
		m := (u.First + u.Last) / 2
		if err := b.load(m); err != nil {
			return res, err
		}
		b.push(u.First, m)
		b.push(m, u.Last)
	}
	res.Unread = append(append(res.Unread, b.differ...), b.rowless...)
	sort.Slice(res.Unread, func(i, j int) bool { return res.Unread[i].First < res.Unread[j].First })
	res.Changes = b.changes(points)
	return res, nil
}

// bisection is KeyHistory under way: the states read, by point, and two
// queues of stretches (i, j) whose ends are read: those whose ends
// differ come first (each holds a change), then the rowless ones.
type bisection struct {
	ctx             context.Context
	read            func(ctx context.Context, i int) (KeyState, error)
	states          map[int]KeyState
	reads           int
	differ, rowless []Unread
}

// load reads the key's state at point i into states, once.
func (b *bisection) load(i int) error {
	if _, ok := b.states[i]; ok {
		return nil
	}
	if err := b.ctx.Err(); err != nil {
		return err
	}
	s, err := b.read(b.ctx, i)
	if err != nil {
		return err
	}
	b.states[i] = s
	b.reads++
	return nil
}

// push queues the stretch (i, j), both ends read, unless its ends settle
// it.
func (b *bisection) push(i, j int) {
	si, sj := b.states[i], b.states[j]
	switch {
	case j-i <= 1 || unchanged(si, sj):
	case sameRow(si, sj) && si.Row == nil:
		b.rowless = append(b.rowless, Unread{i, j})
	default:
		b.differ = append(b.differ, Unread{i, j})
	}
}

// next takes the stretch to read next: the last one whose ends differ,
// else the first rowless one.
func (b *bisection) next() (u Unread) {
	if len(b.differ) > 0 {
		u, b.differ = b.differ[len(b.differ)-1], b.differ[:len(b.differ)-1]
		return u
	}
	u, b.rowless = b.rowless[0], b.rowless[1:]
	return u
}

// changes are the points read where the row differs from the point read
// before it (the first point read included).
func (b *bisection) changes(points []Point) []KeyChange {
	seen := make([]int, 0, len(b.states))
	for i := range b.states {
		seen = append(seen, i)
	}
	sort.Ints(seen)
	var out []KeyChange
	prev := -1
	for _, i := range seen {
		s := b.states[i]
		if prev < 0 || !sameRow(b.states[prev], s) {
			out = append(out, KeyChange{Index: i, Point: points[i], After: prev, Row: s.Row, Seq: s.Seq})
		}
		prev = i
	}
	return out
}
