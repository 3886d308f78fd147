package store

import (
	"context"
	"fmt"

	"kvdeck/store/internal/hrana"
)

// A store with a replica (Options.Replica) reads from it, each read
// carrying the highest replication index the store has seen, writes to
// the primary (hrana.Route).

// Replication is a store's replica lag (Store.Replication): the
// replication index of its primary and of its replica, and how many
// frames the replica is behind (never below zero).
type Replication struct {
	Primary, Replica uint64
	Lag              int64
}

// Replication reads the replica lag of a store opened with a replica:
// the primary's replication index now (one request), less the replica's
// (the index of its last answer to this store, else one request to it).
// Neither read carries an index to wait for: the replica answers as it
// stands. ErrInvalidArgument when the store has no replica.
func (s *Store) Replication(ctx context.Context) (Replication, error) {
	if !s.server.reads.Route().Replica() {
		return Replication{}, fmt.Errorf("%w: %s has no replica", ErrInvalidArgument, s.display)
	}
	var r Replication
	if r.Replica = s.server.reads.Route().Last(); r.Replica == 0 {
		idx, err := s.indexOf(ctx, s.server.reads)
		if err != nil {
			return r, err
		}
		r.Replica = idx
	}
	idx, err := s.indexOf(ctx, s.server.primary)
	if err != nil {
		return r, err
	}
	r.Primary = idx
	if r.Primary > r.Replica {
		r.Lag = int64(r.Primary - r.Replica)
	}
	return r, nil
}

// indexOf is the replication index a server answers a statement that
// reads nothing with (one request, without an index to wait for).
func (s *Store) indexOf(ctx context.Context, c *hrana.Client) (uint64, error) {
	ctx, cancel := s.requestCtx(ctx)
	defer cancel()
	idx, err := c.ReplicationIndex(ctx)
	if err != nil {
		return 0, s.classify(s.timedOut(ctx, err))
	}
	return idx, nil
}
