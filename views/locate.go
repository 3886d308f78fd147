package views

import (
	"context"

	"kvdeck/codec"
	"kvdeck/store"
)

// Where a key stands now, read by Browse's :goto and Activity's enter:
// the tree and the feed hold what was read earlier, so a key written or
// deleted since must be looked up in the store before a jump.

// FirstRow reads the first row opts lists, expired ones included (a row
// not swept yet is still where the key is); ok is false when there is none
// or its key does not decode.
func FirstRow(ctx context.Context, st *store.Store, opts store.ListOptions) (e store.Entry, ok bool, err error) {
	opts.Limit, opts.IncludeExpired = 1, true
	p, err := st.List(ctx, opts)
	if err != nil || len(p.Entries) == 0 || p.Entries[0].KeyErr != nil {
		return store.Entry{}, false, err
	}
	return p.Entries[0], true, nil
}

// Neighbour is where a key that is not in the store was: the deepest
// level of its path that still holds keys, on the part next to the key's
// there (the one after it, else the one before); nil when no level but
// the root is left. It reads one or two single rows per level walked up.
func Neighbour(ctx context.Context, st *store.Store, key codec.Key) (codec.Key, error) {
	for d := len(key) - 1; d >= 0; d-- {
		level, part := key[:d], key[:d+1]
		next, err := firstKeyBelow(ctx, st, store.ListOptions{Prefix: level, Start: part}, d)
		if err == nil && next == nil {
			next, err = firstKeyBelow(ctx, st, store.ListOptions{Prefix: level, End: part, Reverse: true}, d)
		}
		if err != nil || next != nil {
			return next, err
		}
	}
	return nil, nil
}

// firstKeyBelow is the first key opts lists when it is deeper than d
// parts (nil for the level's own row: no neighbour part), cut to d+1.
func firstKeyBelow(ctx context.Context, st *store.Store, opts store.ListOptions, d int) (codec.Key, error) {
	e, ok, err := FirstRow(ctx, st, opts)
	if err != nil || !ok || len(e.Key) <= d {
		return nil, err
	}
	return e.Key[:d+1], nil
}
