package store

import (
	"context"
	"fmt"

	"kvdeck/codec"
)

// Delete removes key with a plain DELETE: no stamp is issued.
func (s *Store) Delete(ctx context.Context, key codec.Key) error {
	if err := s.checkWritable("delete"); err != nil {
		return err
	}
	enc, err := codec.Encode(key)
	if err != nil {
		return err
	}
	_, err = s.deleteImaged(ctx, PendingWrite{Kind: "delete", Keys: [][]byte{enc}, Mutations: []Mutation{{Type: MutationDelete, Key: key}}},
		"DELETE FROM kv WHERE k = ?", []any{enc})
	return err
}

// DeleteRaw removes the physical row at a raw encoded key when its stamp is
// still ver (so an operator can clear an undecodable row without racing a
// writer); it reports whether a row was deleted.
func (s *Store) DeleteRaw(ctx context.Context, raw []byte, ver int64) (bool, error) {
	if err := s.checkWritable("delete"); err != nil {
		return false, err
	}
	n, err := s.deleteImaged(ctx, PendingWrite{Kind: "delete-raw", Keys: [][]byte{raw}}, "DELETE FROM kv WHERE k = ? AND ver = ?", []any{raw, ver})
	return n > 0, err
}

// deleteImaged runs the DELETE q of w's one key as a journaled write: the
// key's row read and recorded first (beginImaged), the DELETE behind the
// guard, read and tried again while the guard fails, up to guardTries
// times. It returns how many rows the DELETE removed; when none, the row
// read is no part of the write's undo (Kept).
func (s *Store) deleteImaged(ctx context.Context, w PendingWrite, q string, args []any) (int64, error) {
	for try := 1; ; try++ {
		j, err := s.beginImaged(ctx, w)
		if err != nil {
			return 0, err
		}
		var n int64
		del := stmt{sql: q, args: args, read: func(rows resultRows) error {
			for n = 0; rows.Next(); n++ {
			}
			return rows.Err()
		}}
		if j != nil {
			del.sql += " AND " + okSQL
		}
		del.sql += " RETURNING 1"
		err = s.execBatch(ctx, j.guarded([]stmt{del}))
		if err != nil || !j.moved() {
			var kept [][]byte
			if n == 0 {
				kept = w.Keys
			}
			j.endKept(true, "", kept, err)
			return n, err
		}
		j.end(false, "", nil)
		if try == guardTries {
			return 0, fmt.Errorf("%s not made: %w (%d tries)", w.Kind, ErrKeysChanging, try)
		}
	}
}

// NullStamp is the stamp kvdeck prints for a row whose ver has no stamp:
// not a whole number (another writer's TEXT, BLOB or fractional REAL),
// or 0, below every stamp the reference issues.
var NullStamp = codec.FormatStamp(0)

// DeleteUnstamped removes the live row at key when it still has no
// stamp (NullStamp: its ver is 0 or not a whole number), the guard a row
// printed with NullStamp can be deleted by; it reports whether a row was
// deleted. A row rewritten meanwhile by the reference (a real stamp),
// deleted or expired is kept (false).
func (s *Store) DeleteUnstamped(ctx context.Context, key codec.Key) (bool, error) {
	if err := s.checkWritable("delete"); err != nil {
		return false, err
	}
	raw, err := codec.Encode(key)
	if err != nil {
		return false, err
	}
	n, err := s.deleteImaged(ctx, PendingWrite{Kind: "delete", Keys: [][]byte{raw}, Mutations: []Mutation{{Type: MutationDelete, Key: key}}},
		"DELETE FROM kv WHERE k = ? AND (ver = 0 OR NOT "+wholeVerSQL+") AND "+liveSQL, []any{raw, s.Now()})
	return n > 0, err
}
