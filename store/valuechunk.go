package store

import (
	"context"
	"database/sql"
	"fmt"
)

// ValueChunkSize is the chunk a reader of a whole value asks for at a
// time (ValueChunk): 256 KiB, so that a 100 MB value is read in about
// 400 requests and never held whole by the reader.
const ValueChunkSize = 256 << 10

// ValueChunkMax bounds the chunk ValueChunkFor gives.
const ValueChunkMax = 8 << 20

// ValueChunkFor is the chunk to read a value of size bytes in: SQLite's
// substr reads the whole value for every chunk, so a stream of n chunks
// costs about n whole reads. Measured on a file, 64 MiB: one Get 0.24 s;
// chunks of 256 KiB 47 s (197 times), 1 MiB 12.6 s (53), 4 MiB 6.6 s
// (28). A value is read in about 16 chunks, of 256 KiB at least and
// ValueChunkMax at most: memory stays at a 16th of the value, 8 MiB
// past 128 MiB.
func ValueChunkFor(size int64) int {
	return int(min(max(size/16, ValueChunkSize), ValueChunkMax))
}

// ValuePart is one chunk of a row's value (ValueChunk).
type ValuePart struct {
	// Bytes are the value's bytes from the offset asked, as stored (a
	// TEXT value's bytes whether or not they are UTF-8), at most the
	// length asked; empty past the end.
	Bytes []byte
	// Size is the whole value's length in bytes.
	Size int64
	// Ver is the row's versionstamp number: a reader of several chunks
	// tells by it that the value changed between them.
	Ver int64
	// Found is false when no row has the key; Null when v is NULL.
	Found, Null bool
}

// ValueChunk reads at most n bytes of the value of the physical row whose
// encoded key is raw (expired or not, as Browse shows it), from byte off
// (0 for the first), and the value's whole size, in one statement. The
// cast to BLOB counts bytes, not characters, and keeps a TEXT value that
// is not UTF-8 as stored. SQLite's substr reads the whole value on the
// database's side; only the chunk crosses to the caller.
func (s *Store) ValueChunk(ctx context.Context, raw []byte, off int64, n int) (ValuePart, error) {
	if off < 0 || n <= 0 {
		return ValuePart{}, fmt.Errorf("store: value chunk at %d of %d bytes: %w", off, n, ErrInvalidArgument)
	}
	var (
		part ValuePart
		b    bytesCol
		size sql.NullInt64
		ver  verCol
	)
	found, err := s.queryRow(ctx,
		"SELECT substr(CAST(v AS BLOB), ?, ?), length(CAST(v AS BLOB)), ver FROM kv WHERE k = ?",
		[]any{off + 1, n, raw}, &b, &size, &ver)
	if err != nil || !found {
		return part, err
	}
	part.Found, part.Ver, part.Null = true, ver.n, !size.Valid
	part.Size = size.Int64
	if !b.null {
		part.Bytes = b.b
	}
	return part, nil
}

// EntryHead is a row read with at most the first bytes of its value
// (GetRawHead).
type EntryHead struct {
	// Entry is the row; its Value holds at most the bytes asked for (the
	// whole value when Size fits), ValueNull as stored.
	Entry
	// Size is the whole value's length in bytes.
	Size int64
	// JSON, when the value is cut (Cut), is SQLite's json_valid of the
	// whole value, decided on the database's side; when it is whole,
	// Entry.ValueValid tells.
	JSON bool
}

// Cut reports whether Value holds less than the whole value.
func (h EntryHead) Cut() bool { return h.Size > int64(len(h.Value)) }

// Valid is whether the whole value is JSON: Entry.ValueValid when Value
// is whole, else JSON.
func (h EntryHead) Valid() bool {
	if h.Cut() {
		return h.JSON
	}
	return h.ValueValid()
}

// GetRawHead is GetRaw with at most the first n bytes of the value: one
// statement, which answers the whole value (as GetRaw does) when it is n
// bytes or less, and otherwise its first n bytes as stored, its length and
// whether it is JSON, so that a 50 MB value costs n bytes to the caller
// (and stays under a server's response limit).
func (s *Store) GetRawHead(ctx context.Context, raw []byte, n int) (h EntryHead, found bool, err error) {
	if n <= 0 {
		return h, false, fmt.Errorf("store: value head of %d bytes: %w", n, ErrInvalidArgument)
	}
	if raw == nil {
		raw = []byte{}
	}
	var (
		v      bytesCol
		ver    verCol
		exp    expiryCol
		size   sql.NullInt64
		isJSON sql.NullInt64
	)
	const length = "length(CAST(v AS BLOB))"
	q := "SELECT CASE WHEN " + length + " > ? THEN substr(CAST(v AS BLOB), 1, ?) ELSE " + s.valueSQL() + " END, " +
		length + ", CASE WHEN " + length + " > ? THEN json_valid(CAST(v AS TEXT)) END, " +
		s.intSQL("ver") + ", " + s.intSQL("expires_at") + " FROM kv WHERE k = ?"
	found, err = s.queryRow(ctx, q, []any{n, n, n, raw}, &v, &size, &isJSON, &ver, &exp)
	if err != nil || !found {
		return h, false, err
	}
	h.Entry = newEntryCols(bytesCol{b: raw}, v, ver, exp)
	h.Size, h.JSON = size.Int64, isJSON.Int64 == 1
	return h, true, nil
}
