package store

import (
	"context"

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
	j, err := s.beginWrite(ctx, PendingWrite{Kind: "delete", Keys: [][]byte{enc}, Mutations: []Mutation{{Type: MutationDelete, Key: key}}})
	if err != nil {
		return err
	}
	del := stmt{sql: "DELETE FROM kv WHERE k = ?", args: []any{enc}}
	if j != nil {
		// The row it removed, expired or not, is its before-image.
		del.sql += j.returning()
		del.read = j.reader(true)
	}
	err = s.execBatch(ctx, []stmt{del})
	j.end(true, "", err)
	return err
}

// DeleteRaw removes the physical row at a raw encoded key when its stamp is
// still ver (so an operator can clear an undecodable row without racing a
// writer); it reports whether a row was deleted.
func (s *Store) DeleteRaw(ctx context.Context, raw []byte, ver int64) (bool, error) {
	if err := s.checkWritable("delete"); err != nil {
		return false, err
	}
	j, err := s.beginWrite(ctx, PendingWrite{Kind: "delete-raw", Keys: [][]byte{raw}})
	if err != nil {
		return false, err
	}
	n, err := s.deleteReturning(ctx, j, "DELETE FROM kv WHERE k = ? AND ver = ?", []any{raw, ver})
	j.end(true, "", err)
	return n > 0, err
}

// deleteReturning runs one DELETE in a write transaction and counts the
// rows it removed; when j is journaling, the removed rows are its
// before-images (RETURNING), read by the DELETE itself.
func (s *Store) deleteReturning(ctx context.Context, j *journaled, q string, args []any) (int64, error) {
	var n int64
	read := func(rows resultRows) error {
		for rows.Next() {
			n++
		}
		return rows.Err()
	}
	if j != nil {
		collect := j.reader(true)
		read = func(rows resultRows) error {
			err := collect(rows)
			n = int64(len(j.before))
			return err
		}
	}
	err := s.execBatch(ctx, []stmt{{sql: q + j.returning(), args: args, read: read}})
	return n, err
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
	j, err := s.beginWrite(ctx, PendingWrite{Kind: "delete", Keys: [][]byte{raw}, Mutations: []Mutation{{Type: MutationDelete, Key: key}}})
	if err != nil {
		return false, err
	}
	n, err := s.deleteReturning(ctx, j, "DELETE FROM kv WHERE k = ? AND (ver = 0 OR NOT "+wholeVerSQL+") AND "+liveSQL, []any{raw, s.Now()})
	j.end(n > 0, "", err)
	return n > 0, err
}
