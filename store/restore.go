package store

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// restoreChunk is how many keys one term of a Restore's verdict, and one
// of its put or delete statements, names: a verdict is an AND of one term
// per chunk (not one per key), so thousands of keys stay far under
// SQLite's expression depth limit (1000), and each statement far under
// its bound-variable limit.
const restoreChunk = 500

// maxRestoreVariables bounds the variables of a Restore's head statement,
// which names every key (twice when it puts rows: the verdict both bumps
// seq and is stored): SQLite's default limit, in modernc.org/sqlite and
// in sqld alike, is 32766. About 8000 keys with expected stamps, 16000
// expected absent, fit.
const maxRestoreVariables = 32000

// restoreReadChunk is how many keys one statement of ReadRows names: a
// short statement, and an answer far under what a server sends at once
// for rows of ordinary size.
const restoreReadChunk = 1000

// Restore writes ops as one atomic commit, but only when every key's
// physical row is exactly the one expected (its ver, or no row): the
// inverse of a journaled write, refused whole if anyone changed a key
// since. Put rows keep their value text and expiry and get one new stamp
// (seq is bumped once when anything is put). It is journaled like every
// other write (Kind "restore"), so undoing an undo redoes.
//
// The commit has the shape of every commit: a head that evaluates the
// verdict against the rows as they are (an expired row still counts as
// there), stores it in kv_meta.ok and bumps seq when something is put,
// then puts and deletes guarded by it. Keys must be distinct. A refusal
// writes nothing and re-reads the keys (one request) to fill Conflicts.
func (s *Store) Restore(ctx context.Context, ops []RestoreOp) (RestoreResult, error) {
	return s.RestoreAt(ctx, 0, ops)
}

// RestoreAt is Restore that also requires the store's seq to be at least
// minSeq (0: no such check), in the same verdict: a database recreated or
// copied back from an older file starts its stamps again, and the same
// stamps then name other rows. A refusal for that reason alone has no
// Conflicts and SeqBelow set.
func (s *Store) RestoreAt(ctx context.Context, minSeq int64, ops []RestoreOp) (RestoreResult, error) {
	if err := s.checkWritable("restore"); err != nil {
		return RestoreResult{}, err
	}
	if len(ops) == 0 {
		return RestoreResult{OK: true}, nil
	}
	keys, err := restoreKeys(ops)
	if err != nil {
		return RestoreResult{}, err
	}
	known, images := restoreImages(ops)
	stmts, hasPut, err := buildRestore(ops, minSeq, s.recorder != nil && !known)
	if err != nil {
		return RestoreResult{}, err
	}
	w := PendingWrite{Kind: "restore", Keys: keys, Restores: ops}
	var res CommitResult
	for try := 1; ; try++ {
		var j *journaled
		if known {
			w.Imaged, w.Before = true, images
			j, err = s.beginWrite(ctx, w)
		} else {
			j, err = s.beginImaged(ctx, w)
		}
		if err != nil {
			return RestoreResult{}, err
		}
		res, err = s.runCommit(ctx, j.guarded(stmts), hasPut)
		j.end(res.OK, res.Versionstamp, err)
		if err != nil {
			return RestoreResult{}, err
		}
		if !j.moved() {
			break
		}
		if try == guardTries {
			return RestoreResult{}, fmt.Errorf("restore not made: %w (%d tries)", ErrKeysChanging, try)
		}
	}
	if !res.OK {
		conflicts, err := s.restoreConflicts(ctx, ops)
		out := RestoreResult{Conflicts: conflicts}
		if err == nil && len(conflicts) == 0 && minSeq > 0 {
			var seq int64
			if seq, err = s.Seq(ctx); err == nil && seq < minSeq {
				out.SeqBelow = seq
			}
		}
		return out, err
	}
	return RestoreResult{OK: true, Versionstamp: res.Versionstamp}, nil
}

// restoreImages are the rows ops expect to find, when the caller read
// them (RestoreOp.Found at ExpectVer, or nothing expected): then they are
// a Restore's before-images as they stand, its verdict checking the same
// stamps, and no key needs reading again. known is false otherwise.
func restoreImages(ops []RestoreOp) (known bool, images []RawRow) {
	for _, op := range ops {
		switch {
		case op.ExpectVer == 0:
		case op.Found != nil && op.Found.Ver == op.ExpectVer && bytes.Equal(op.Found.Key, op.Key):
			images = append(images, *op.Found)
		default:
			return false, nil
		}
	}
	return true, images
}

// restoreKeys validates ops (distinct keys; a Put names its op's key or
// none) and returns their keys in order.
func restoreKeys(ops []RestoreOp) ([][]byte, error) {
	keys := make([][]byte, len(ops))
	seen := make(map[string]bool, len(ops))
	for i, op := range ops {
		if seen[string(op.Key)] {
			return nil, fmt.Errorf("%w: restore op %d repeats the key %x", ErrInvalidArgument, i, op.Key)
		}
		seen[string(op.Key)] = true
		if op.Put != nil && op.Put.Key != nil && !bytes.Equal(op.Put.Key, op.Key) {
			return nil, fmt.Errorf("%w: restore op %d puts the key %x in the place of %x", ErrInvalidArgument, i, op.Put.Key, op.Key)
		}
		keys[i] = op.Key
	}
	return keys, nil
}

// buildRestore produces a Restore's statements: the head (statement 0,
// returning ok and seq), then the puts and deletes in chunks, each
// guarded by the verdict; guarded, behind a journal's guard statements,
// whose verdict its own includes.
func buildRestore(ops []RestoreOp, minSeq int64, guarded bool) ([]stmt, bool, error) {
	verdict, vargs := restoreVerdict(ops, minSeq)
	if guarded {
		// The journal's guard (journaled.guard) stored its verdict in ok
		// first: the restore's holds only with it.
		verdict = "(ok = 1 AND " + verdict + ")"
	}
	var puts, dels []RestoreOp
	for _, op := range ops {
		if op.Put != nil {
			puts = append(puts, op)
		} else {
			dels = append(dels, op)
		}
	}
	bump := "0"
	var args []any
	if len(puts) > 0 {
		bump = "CASE WHEN " + verdict + " THEN 1 ELSE 0 END"
		args = append(args, vargs...)
	}
	args = append(args, vargs...)
	if len(args) > maxRestoreVariables {
		return nil, false, fmt.Errorf("%w: a restore of %d keys is too large for one statement (%d variables; at most %d)", ErrInvalidArgument, len(ops), len(args), maxRestoreVariables)
	}
	stmts := []stmt{{
		sql:    "UPDATE kv_meta SET seq = seq + " + bump + ", ok = " + verdict + " WHERE id = 0 RETURNING ok, seq",
		args:   args,
		result: true,
	}}
	for chunk := range slices.Chunk(puts, restoreChunk) {
		stmts = append(stmts, restorePuts(chunk))
	}
	for chunk := range slices.Chunk(dels, restoreChunk) {
		stmts = append(stmts, stmt{
			sql:  "DELETE FROM kv WHERE k IN (" + placeholders(len(chunk)) + ") AND (SELECT ok FROM kv_meta WHERE id = 0) = 1",
			args: byteArgs(opKeys(chunk)),
		})
	}
	return stmts, len(puts) > 0, nil
}

// restorePuts is the statement that puts chunk's rows back once the
// verdict holds. The value text goes in as it was found (not
// re-normalised), the expiry too, even when already past: a swept row
// comes back expired-but-present. Every row gets the new seq.
func restorePuts(chunk []RestoreOp) stmt {
	args := make([]any, 0, 3*len(chunk))
	for _, op := range chunk {
		var expires any
		if op.Put.ExpiresAt != nil {
			expires = *op.Put.ExpiresAt
		}
		// A value that is not UTF-8 (another program's TEXT) goes as
		// a BLOB of its bytes, made TEXT again by the CAST: a server's
		// JSON would carry it as text only with U+FFFD in place.
		var value any = string(op.Put.Value)
		if !utf8.Valid(op.Put.Value) {
			value = op.Put.Value
		}
		args = append(args, keyArg(op.Key), value, expires)
	}
	return stmt{
		sql: "INSERT INTO kv (k, v, ver, expires_at) SELECT column1, CAST(column2 AS TEXT), (SELECT seq FROM kv_meta WHERE id = 0), column3 FROM (VALUES (?, ?, ?)" +
			strings.Repeat(", (?, ?, ?)", len(chunk)-1) + ") WHERE (SELECT ok FROM kv_meta WHERE id = 0) = 1 " +
			"ON CONFLICT (k) DO UPDATE SET v = excluded.v, ver = excluded.ver, expires_at = excluded.expires_at",
		args: args,
	}
}

// restoreVerdict renders "every key's physical row is the expected one"
// (and, when minSeq is set, "seq has reached minSeq") as one SQL boolean, one term per chunk of keys: keys that must have no
// row, NOT EXISTS over an IN list; keys that must have a row at a ver, a
// count of the rows that match a VALUES list of (key, ver) pairs, which
// must be all of them (keys are distinct, so each pair matches at most
// one row). Liveness plays no part: an expired row is there.
func restoreVerdict(ops []RestoreOp, minSeq int64) (string, []any) {
	var absent, present []RestoreOp
	for _, op := range ops {
		if op.ExpectVer == 0 {
			absent = append(absent, op)
		} else {
			present = append(present, op)
		}
	}
	var parts []string
	var args []any
	if minSeq > 0 {
		// seq is kv_meta's own column: the head is an UPDATE of that row,
		// and reads it as it was before the update.
		parts = append(parts, "seq >= ?")
		args = append(args, minSeq)
	}
	for chunk := range slices.Chunk(absent, restoreChunk) {
		parts = append(parts, "NOT EXISTS (SELECT 1 FROM kv WHERE k IN ("+placeholders(len(chunk))+"))")
		args = append(args, byteArgs(opKeys(chunk))...)
	}
	for chunk := range slices.Chunk(present, restoreChunk) {
		// CROSS JOIN keeps the pairs the outer loop (SQLite never reorders
		// it): one primary-key lookup per pair. With a plain JOIN the
		// planner scanned kv and searched the pairs for each row; 8,000
		// keys took 20 s on a file.
		parts = append(parts, "(SELECT count(*) FROM (VALUES (?, ?)"+strings.Repeat(", (?, ?)", len(chunk)-1)+
			") AS e CROSS JOIN kv ON kv.k = e.column1 AND kv.ver = e.column2) = "+strconv.Itoa(len(chunk)))
		for _, op := range chunk {
			args = append(args, keyArg(op.Key), op.ExpectVer)
		}
	}
	return "(" + strings.Join(parts, " AND ") + ")", args
}

// restoreConflicts re-reads the keys of a refused Restore (their physical
// rows) and lists those not as expected. Best effort, as Commit's Failed:
// another writer may act in between.
func (s *Store) restoreConflicts(ctx context.Context, ops []RestoreOp) ([]RestoreConflict, error) {
	rows, err := s.ReadRows(ctx, opKeys(ops))
	if err != nil {
		return nil, fmt.Errorf("the restore was refused (a key is not as expected); re-reading the keys failed too: %w", err)
	}
	var out []RestoreConflict
	for i, op := range ops {
		row := rows[i]
		if (row != nil && op.ExpectVer != 0 && row.Ver == op.ExpectVer) || (row == nil && op.ExpectVer == 0) {
			continue
		}
		out = append(out, RestoreConflict{Key: op.Key, ExpectVer: op.ExpectVer, Found: row})
	}
	return out, nil
}

// ReadRows reads the physical rows at keys, expired ones included (what a
// Restore checks), in the order of keys, nil where there is none: one
// statement per restoreReadChunk keys.
func (s *Store) ReadRows(ctx context.Context, keys [][]byte) ([]*RawRow, error) {
	found := make(map[string]*RawRow, len(keys))
	for rest := keys; len(rest) > 0; {
		chunk := rest[:min(restoreReadChunk, len(rest))]
		rest = rest[len(chunk):]
		if err := s.collectRows(ctx, found, "k IN ("+placeholders(len(chunk))+")", byteArgs(chunk)); err != nil {
			return nil, err
		}
	}
	return inOrder(keys, found), nil
}

// collectRows reads the physical rows matching where into found. A
// one-shot's first read (a journaled write's images) carries the schema
// check in its request.
func (s *Store) collectRows(ctx context.Context, found map[string]*RawRow, where string, args []any) error {
	q := "SELECT " + s.entrySQL() + " FROM kv WHERE " + where
	var rows []Entry
	if opts := s.takeDeferred(); opts != nil {
		first, err := s.oneShotRows(ctx, *opts, q, args)
		if err != nil {
			return err
		}
		for sc := newEntryScanner(); first != nil && first.Next(); {
			e, err := sc.scan(first)
			if err != nil {
				return s.classify(err)
			}
			rows = append(rows, e)
		}
		if first != nil {
			s.rowsRead.Add(int64(len(rows)))
			addFound(found, rows)
			return nil
		}
	}
	rows, err := s.collect(ctx, q, args)
	if err != nil {
		return err
	}
	addFound(found, rows)
	return nil
}

// addFound puts rows into found by key.
func addFound(found map[string]*RawRow, rows []Entry) {
	for _, e := range rows {
		found[string(e.Raw)] = &RawRow{Key: e.Raw, Value: e.Value, Ver: e.Ver, ExpiresAt: e.ExpiresAt}
	}
}

// inOrder is found's rows in the order of keys, nil where there is none.
func inOrder(keys [][]byte, found map[string]*RawRow) []*RawRow {
	out := make([]*RawRow, len(keys))
	for i, k := range keys {
		out[i] = found[string(k)]
	}
	return out
}

// opKeys returns the keys of ops.
func opKeys(ops []RestoreOp) [][]byte {
	keys := make([][]byte, len(ops))
	for i, op := range ops {
		keys[i] = op.Key
	}
	return keys
}
