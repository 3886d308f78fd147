package store

import (
	"context"
	"errors"
)

// Restore writes ops as one atomic commit, but only when every key's
// physical row is exactly the one expected (its ver, or no row): the
// inverse of a journaled write, refused whole if anyone changed a key
// since. Put rows keep their value text and expiry and get one new stamp
// (seq is bumped once when anything is put). It is journaled like every
// other write (Kind "restore"), so undoing an undo redoes.
func (s *Store) Restore(ctx context.Context, ops []RestoreOp) (RestoreResult, error) {
	return RestoreResult{}, errors.New("store.Restore: not implemented yet")
}
