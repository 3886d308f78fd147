package store

import (
	"context"
	"database/sql"
	"sync"
)

// maxPrepared bounds a statement cache (stmtCache).
const maxPrepared = 128

// stmtCache keeps the prepared statements of one pool or one connection
// of an embedded file, by their text: preparing costs as much as running
// a point statement in modernc.org/sqlite (the census's statement about a
// millisecond, 10-25 times running it over a small window). A server
// parses statements itself and has none.
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
	// renew: a full cache is emptied for the next statement (a connection
	// one reader holds at a time). Otherwise statements past maxPrepared
	// (commits with unusual numbers of checks) run unprepared: a pool's
	// statements may be running in other goroutines, and are never closed
	// before the store is.
	renew bool
}

// preparer is a pool or a connection.
type preparer interface {
	PrepareContext(ctx context.Context, q string) (*sql.Stmt, error)
}

// get returns q prepared on p, from the cache when it is there; nil (and
// no error) when q is to run unprepared.
func (c *stmtCache) get(ctx context.Context, p preparer, q string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[q]; ok {
		return st, nil
	}
	if len(c.m) >= maxPrepared && !c.renew {
		return nil, nil
	}
	st, err := p.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if len(c.m) >= maxPrepared {
		c.closeLocked()
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[q] = st
	return st, nil
}

// close closes the cached statements and empties the cache.
func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closeLocked()
}

func (c *stmtCache) closeLocked() {
	for _, st := range c.m {
		_ = st.Close()
	}
	c.m = nil
}
