package store

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"kvdeck/codec"
)

// The engine side of the write journal (recorder.go declares the
// contract): telling the Recorder before and after each write. A write's
// before-images are read before it is sent and put on the disk by the
// Recorder before the commit; the commit then runs only if its keys are
// still as read (guard). Reading them inside the commit's own
// transaction instead would put them on the disk after the commit, and
// syncing the journal inside that transaction would hold SQLite's write
// lock across an fsync: a service that sets no busy timeout fails every
// commit it tries meanwhile.

// guardTries is how many times a journaled write is read and tried when
// another writer changes one of its keys between the read of its
// before-images and its commit; then it gives up (ErrKeysChanging).
const guardTries = 5

// ErrKeysChanging: a journaled write was not made because another writer
// changed its keys between the read of its before-images and its commit,
// every time it was tried.
var ErrKeysChanging = errors.New("another writer kept changing the keys between the journal's read of them and the commit")

// journaled is one write told to the Recorder; nil when none is set, and
// then every method does nothing.
type journaled struct {
	rec Recorder
	ctx context.Context
	id  string
	// keys and pre are the write's keys and their rows as read before it
	// (nil: no row); before the rows among them.
	keys   [][]byte
	pre    []*RawRow
	before []RawRow
	// guard is what the guard statements found: 1 every key as read,
	// -1 a key changed (nothing was written), 0 not read.
	guard int8
	// ended: the outcome was told.
	ended bool
}

// beginWrite tells the store's Recorder that w is about to be sent. It
// returns nil when no Recorder is set, and an error wrapping ErrJournal
// (the write must then not be made) when the Recorder refuses.
func (s *Store) beginWrite(ctx context.Context, w PendingWrite) (*journaled, error) {
	if s.recorder == nil {
		return nil, nil
	}
	w.Op, w.Action = WriteOp(ctx), ActionOf(ctx)
	id, err := s.recorder.Before(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("%w: %s not made: %w", ErrJournal, w.Kind, err)
	}
	return s.journaledAs(ctx, id, w), nil
}

// journaledAs is the write w the Recorder recorded as id. After must
// still be told when ctx is the reason the write ended (an interrupt
// turns a commit into an unknown outcome): it gets ctx's values without
// its end.
func (s *Store) journaledAs(ctx context.Context, id string, w PendingWrite) *journaled {
	return &journaled{rec: s.recorder, ctx: context.WithoutCancel(ctx), id: id, keys: w.Keys, before: w.Before}
}

// beginImaged reads the rows of w.Keys (readImages) and tells the Recorder w with them as its before-images. The
// write's statements must then run behind j.guard.
func (s *Store) beginImaged(ctx context.Context, w PendingWrite) (*journaled, error) {
	if s.recorder == nil {
		return nil, nil
	}
	pre, err := s.readImages(ctx, w.Keys)
	if err != nil {
		return nil, fmt.Errorf("%w: %s not made: reading the rows it changes: %w", ErrJournal, w.Kind, err)
	}
	w.Imaged, w.Before = true, presentRows(pre)
	j, err := s.beginWrite(ctx, w)
	if err != nil {
		return nil, err
	}
	j.pre = pre
	return j, nil
}

// readImages reads the physical rows at keys, nil where there is none,
// with one statement whatever their number (the keys travel as one JSON
// array of hex): one request over a server, a write's one request more;
// on a rollback-journal file the lock-free read, which a service's
// commit never meets. The answer is about the size of the rows the write
// replaces, which its commit's own size bounds in practice.
func (s *Store) readImages(ctx context.Context, keys [][]byte) ([]*RawRow, error) {
	if len(keys) <= restoreReadChunk {
		return s.ReadRows(ctx, keys)
	}
	hexes := make([]string, len(keys))
	for i, k := range keys {
		hexes[i] = hex.EncodeToString(k)
	}
	list, err := json.Marshal(hexes)
	if err != nil {
		return nil, err
	}
	found := make(map[string]*RawRow, len(keys))
	if err := s.collectRows(ctx, found, "k IN (SELECT unhex(value) FROM json_each(?))", []any{string(list)}); err != nil {
		return nil, err
	}
	return inOrder(keys, found), nil
}

// presentRows are the rows of pre, without the keys that had none.
func presentRows(pre []*RawRow) []RawRow {
	out := make([]RawRow, 0, len(pre))
	for _, r := range pre {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// syncRecorder puts the outcome lines a BatchRecorder left in the cache on
// the disk; an error wraps ErrJournal: the writes were made, their images
// are on the disk, but their outcomes may not survive a power loss.
func (s *Store) syncRecorder() error {
	r, ok := s.recorder.(BatchRecorder)
	if !ok {
		return nil
	}
	if err := r.Sync(); err != nil {
		return fmt.Errorf("%w: outcome lines were written but not synced to the disk: %w", ErrJournal, err)
	}
	return nil
}

// moved reports whether the write's guard found a key changed since its
// images were read: nothing was written, and it is read and tried again.
func (j *journaled) moved() bool { return j != nil && j.guard < 0 }

// end tells the Recorder how the write ended: applied (with the stamp and
// the before-images) when err is nil and applied is true, unknown when err
// wraps ErrOutcomeUnknown, not applied otherwise.
func (j *journaled) end(applied bool, stamp string, err error) {
	j.endKept(applied, stamp, nil, err)
}

// endKept is end for a write that applied but left the rows of kept in
// place (a sweep's delete skips a row rewritten since it was read).
func (j *journaled) endKept(applied bool, stamp string, kept [][]byte, err error) {
	if j == nil || j.ended {
		return
	}
	j.ended = true
	r := WriteResult{Outcome: OutcomeNotApplied, Err: err}
	switch {
	case errors.Is(err, ErrOutcomeUnknown):
		r.Outcome = OutcomeUnknown
	case err == nil && applied:
		r.Outcome, r.Stamp, r.Before, r.Kept = OutcomeApplied, stamp, without(j.before, kept), kept
	case err == nil && j.moved():
		r.Err = errMoved
	}
	j.rec.After(j.ctx, j.id, r)
}

// errMoved is the recorded error of an attempt whose guard failed.
var errMoved = errors.New("a key changed between the read of its before-images and the commit; nothing was written, and it was read and tried again")

// without is rows less those at kept.
func without(rows []RawRow, kept [][]byte) []RawRow {
	if len(kept) == 0 {
		return rows
	}
	drop := make(map[string]bool, len(kept))
	for _, k := range kept {
		drop[string(k)] = true
	}
	out := make([]RawRow, 0, len(rows))
	for _, r := range rows {
		if !drop[string(r.Key)] {
			out = append(out, r)
		}
	}
	return out
}

// settled tells the Recorder that a write whose answer was lost was found
// applied by reading: its before-images went with the answer.
func (j *journaled) settled(stamp string) {
	if j == nil || j.ended {
		return
	}
	j.ended = true
	j.rec.After(j.ctx, j.id, WriteResult{Outcome: OutcomeApplied, Stamp: stamp, BeforeUnknown: true})
}

// guardChunk is how many keys one guard statement names: 2 bound values
// a key at most, far under maxStmtArgs.
const guardChunk = 4000

// guardStmts returns the statements that store in kv_meta.ok whether every
// key still has the row the images were read from (the same stamp; a
// row without a stamp, still one without; no row, still none), to run
// first in the write's transaction, the write's own statements then
// guarded by ok; nil when no Recorder is set or no key is written. An
// expired row counts as there: the images are physical rows.
func (j *journaled) guardStmts() []stmt {
	if j == nil || len(j.keys) == 0 || len(j.pre) != len(j.keys) {
		return nil // no keys, or images the caller knew (a Restore's)
	}
	var out []stmt
	for lo := 0; lo < len(j.keys); lo += guardChunk {
		hi := min(lo+guardChunk, len(j.keys))
		verdict, args := guardVerdict(j.keys[lo:hi], j.pre[lo:hi])
		if lo > 0 {
			verdict = "(ok = 1 AND " + verdict + ")"
		}
		out = append(out, stmt{sql: "UPDATE kv_meta SET ok = " + verdict + " WHERE id = 0 RETURNING ok", args: args, read: j.readHeld})
	}
	return out
}

// readHeld reads a guard statement's verdict.
func (j *journaled) readHeld(rows resultRows) error {
	j.guard = 0
	for rows.Next() {
		var ok int64
		if err := rows.Scan(&ok); err != nil {
			return err
		}
		j.guard = -1
		if ok == 1 {
			j.guard = 1
		}
	}
	return rows.Err()
}

// guardVerdict is "every key's row is the one read" as one SQL boolean:
// the stamped rows and the absent keys as a Restore checks them, the
// rows without a stamp (ver 0, or not a whole number: another program's)
// as still there without one.
func guardVerdict(keys [][]byte, pre []*RawRow) (string, []any) {
	var ops []RestoreOp
	var unstamped [][]byte
	for i, k := range keys {
		switch r := pre[i]; {
		case r == nil:
			ops = append(ops, RestoreOp{Key: k})
		case r.Ver == 0:
			unstamped = append(unstamped, k)
		default:
			ops = append(ops, RestoreOp{Key: k, ExpectVer: r.Ver})
		}
	}
	verdict, args := "1", []any(nil)
	if len(ops) > 0 {
		verdict, args = restoreVerdict(ops, 0)
	}
	if len(unstamped) > 0 {
		verdict += fmt.Sprintf(" AND (SELECT count(*) FROM kv WHERE k IN (%s) AND (ver = 0 OR NOT %s)) = %d", placeholders(len(unstamped)), wholeVerSQL, len(unstamped))
		args = append(args, byteArgs(unstamped)...)
	}
	return "(" + verdict + ")", args
}

// guarded puts j's guard statements before stmts.
func (j *journaled) guarded(stmts []stmt) []stmt {
	g := j.guardStmts()
	if len(g) == 0 {
		return stmts
	}
	return append(g, stmts...)
}

// okSQL is the condition a guarded statement runs under.
const okSQL = "(SELECT ok FROM kv_meta WHERE id = 0) = 1"

// mutationKeys returns the encoded keys of muts, each once, in order. The
// mutations were validated (buildCommit), so every key encodes.
func mutationKeys(muts []Mutation) [][]byte {
	keys := make([][]byte, 0, len(muts))
	for _, m := range muts {
		if enc, err := codec.Encode(m.Key); err == nil {
			keys = append(keys, enc)
		}
	}
	return uniqueKeys(keys)
}

// uniqueKeys returns keys without repeats, in first-seen order.
func uniqueKeys(keys [][]byte) [][]byte {
	seen := make(map[string]bool, len(keys))
	out := make([][]byte, 0, len(keys))
	for _, k := range keys {
		if !seen[string(k)] {
			seen[string(k)] = true
			out = append(out, k)
		}
	}
	return out
}

// placeholders is "?, ?, ..." for n arguments.
func placeholders(n int) string {
	return "?" + strings.Repeat(", ?", n-1)
}

// byteArgs binds raw keys; a nil key is the empty key, not NULL.
func byteArgs(keys [][]byte) []any {
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = keyArg(k)
	}
	return args
}

// keyArg binds a raw key; a nil key is the empty key, not NULL.
func keyArg(k []byte) any {
	if k == nil {
		return []byte{}
	}
	return k
}
