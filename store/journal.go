package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"kvdeck/codec"
)

// The engine side of the write journal (recorder.go declares the
// contract): telling the Recorder before and after each write, and the
// before-images, read by the write's own transaction so that no writer
// can slip in between the image and the write.

// captureChunk is how many keys one before-image SELECT names: well under
// SQLite's bound-variable limit (32766), and a short statement to parse.
const captureChunk = 500

// journaled is one write told to the Recorder; nil when none is set, and
// then every method does nothing.
type journaled struct {
	rec Recorder
	ctx context.Context
	id  string
	// before collects the before-images the write's statements read.
	before []RawRow
	// cols are the columns a before-image is read with (Store.entrySQL:
	// a TEXT value that is not UTF-8 must not fail the write over sqld).
	cols string
}

// beginWrite tells the store's Recorder that w is about to be sent. It
// returns nil when no Recorder is set, and an error wrapping ErrJournal
// (the write must then not be made) when the Recorder refuses.
func (s *Store) beginWrite(ctx context.Context, w PendingWrite) (*journaled, error) {
	if s.recorder == nil {
		return nil, nil
	}
	w.Op, w.Action = WriteOp(ctx), ActionOf(ctx)
	if _, ok := s.recorder.(RecorderSyncer); !ok {
		w.Unsynced = false // no one could sync its lines later
	}
	id, err := s.recorder.Before(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("%w: %s not made: %w", ErrJournal, w.Kind, err)
	}
	// After must still be told when ctx is the reason the write ended (an
	// interrupt turns a commit into an unknown outcome): it gets ctx's
	// values without its end.
	return &journaled{rec: s.recorder, ctx: context.WithoutCancel(ctx), id: id, cols: s.entrySQL()}, nil
}

// syncRecorder puts the lines of the Unsynced writes recorded so far on
// the disk (RecorderSyncer); an error wraps ErrJournal: the writes were
// made, but their journal lines may not survive a power loss.
func (s *Store) syncRecorder() error {
	r, ok := s.recorder.(RecorderSyncer)
	if !ok {
		return nil
	}
	if err := r.Sync(); err != nil {
		return fmt.Errorf("%w: its lines were written but not synced to the disk: %w", ErrJournal, err)
	}
	return nil
}

// end tells the Recorder how the write ended: applied (with the stamp and
// the before-images) when err is nil and applied is true, unknown when err
// wraps ErrOutcomeUnknown, not applied otherwise.
func (j *journaled) end(applied bool, stamp string, err error) {
	if j == nil {
		return
	}
	r := WriteResult{Outcome: OutcomeNotApplied, Err: err}
	switch {
	case errors.Is(err, ErrOutcomeUnknown):
		r.Outcome = OutcomeUnknown
	case err == nil && applied:
		r.Outcome, r.Stamp, r.Before = OutcomeApplied, stamp, j.before
	}
	j.rec.After(j.ctx, j.id, r)
}

// settled tells the Recorder that a write whose answer was lost was found
// applied by reading: its before-images went with the answer.
func (j *journaled) settled(stamp string) {
	if j == nil {
		return
	}
	j.rec.After(j.ctx, j.id, WriteResult{Outcome: OutcomeApplied, Stamp: stamp, BeforeUnknown: true})
}

// reader is a statement reader that appends the (k, v, ver, expires_at)
// rows it is handed to j.before: a before-image SELECT's or a DELETE ...
// RETURNING's. Columns are read as every reader reads them (scanEntry's
// scanners; the key is not decoded: an image keeps its bytes). The
// reader of a write's first such statement starts j.before afresh: a
// server batch answered "locked" part-way is tried again (execBatch), and
// its rows must not count twice.
func (j *journaled) reader(first bool) txResult {
	return func(rows resultRows) error {
		if first {
			j.before = nil
		}
		for rows.Next() {
			var k, v bytesCol
			var ver verCol
			var exp expiryCol
			if err := rows.Scan(&k, &v, &ver, &exp); err != nil {
				return err
			}
			j.before = append(j.before, RawRow{Key: k.b, Value: v.b, Ver: ver.n, ExpiresAt: exp.at})
		}
		return rows.Err()
	}
}

// capture returns the statements that read the rows of keys as they stand,
// to run inside the write's transaction after its head and before its
// mutations; nil when no Recorder is set (nothing is read then).
func (j *journaled) capture(keys [][]byte) []stmt {
	if j == nil {
		return nil
	}
	var out []stmt
	for len(keys) > 0 {
		chunk := keys[:min(captureChunk, len(keys))]
		keys = keys[len(chunk):]
		out = append(out, stmt{
			sql:  "SELECT " + j.cols + " FROM kv WHERE k IN (" + placeholders(len(chunk)) + ")",
			args: byteArgs(chunk),
			read: j.reader(len(out) == 0),
		})
	}
	return out
}

// returning is the RETURNING clause of a journaled delete: the deleted
// rows when a Recorder is set, only their count otherwise.
func (j *journaled) returning() string {
	if j == nil {
		return " RETURNING 1"
	}
	return " RETURNING " + j.cols
}

// withCapture puts capture statements after a write's head (statement 0,
// which only touches kv_meta) and before its mutations.
func withCapture(stmts []stmt, capture []stmt) []stmt {
	if len(capture) == 0 {
		return stmts
	}
	h := headIndex(stmts) + 1 // after the head: before every mutation
	out := make([]stmt, 0, len(stmts)+len(capture))
	out = append(out, stmts[:h]...)
	out = append(out, capture...)
	return append(out, stmts[h:]...)
}

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
