package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"fmt"
	"strings"

	"kvdeck/codec"
)

// DefaultPageSize is how many rows one List page reads when no limit is set.
const DefaultPageSize = 500

// Get returns the live entry at key; found is false when the key is absent
// or expired.
func (s *Store) Get(ctx context.Context, key codec.Key) (e Entry, found bool, err error) {
	enc, err := codec.Encode(key)
	if err != nil {
		return Entry{}, false, err
	}
	var v []byte
	var ver verCol
	var exp expiryCol
	found, err = s.queryRow(ctx, "SELECT v, ver, expires_at FROM kv WHERE k = ? AND "+liveSQL, []any{enc, s.Now()}, &v, &ver, &exp)
	if err != nil || !found {
		return Entry{}, false, err
	}
	return newEntry(enc, v, ver, exp), true, nil
}

// GetRaw returns the physical row at a raw encoded key, expired or not, and
// whether its key decodes (Entry.KeyErr): the way to read a row whose key
// is undecodable.
func (s *Store) GetRaw(ctx context.Context, raw []byte) (e Entry, found bool, err error) {
	var v []byte
	var ver verCol
	var exp expiryCol
	if raw == nil {
		raw = []byte{}
	}
	found, err = s.queryRow(ctx, "SELECT v, ver, expires_at FROM kv WHERE k = ?", []any{raw}, &v, &ver, &exp)
	if err != nil || !found {
		return Entry{}, false, err
	}
	return newEntry(raw, v, ver, exp), true, nil
}

// DeleteRaw removes the physical row at a raw encoded key when its stamp is
// still ver (so an operator can clear an undecodable row without racing a
// writer); it reports whether a row was deleted.
func (s *Store) DeleteRaw(ctx context.Context, raw []byte, ver int64) (bool, error) {
	if err := s.checkWritable("delete"); err != nil {
		return false, err
	}
	var n int64
	err := s.execBatchScan(ctx, []stmt{{sql: "DELETE FROM kv WHERE k = ? AND ver = ? RETURNING 1", args: []any{raw, ver}}}, 0, func(rows *sql.Rows) error {
		for rows.Next() {
			n++
		}
		return rows.Err()
	})
	return n > 0, err
}

// GetMany returns the live entries at keys, in the same order, with nil for
// absent ones, in one statement.
func (s *Store) GetMany(ctx context.Context, keys []codec.Key) ([]*Entry, error) {
	out := make([]*Entry, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	encs := make([][]byte, len(keys))
	args := make([]any, 0, len(keys)+1)
	for i, k := range keys {
		enc, err := codec.Encode(k)
		if err != nil {
			return nil, err
		}
		encs[i] = enc
		args = append(args, enc)
	}
	args = append(args, s.Now())
	q := "SELECT k, v, ver, expires_at FROM kv WHERE k IN (?" + strings.Repeat(", ?", len(keys)-1) + ") AND " + liveSQL
	entries, err := s.collect(ctx, q, args)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		for i, enc := range encs {
			if out[i] == nil && bytes.Equal(enc, e.Raw) {
				e := e
				out[i] = &e
			}
		}
	}
	return out, nil
}

// ListOptions select a key range. A nil Start or End means "not set"; a
// non-nil empty Key is the empty key.
type ListOptions struct {
	// Prefix limits the range to keys starting with it: Prefix <= k <
	// Prefix||0xFF. The key equal to the prefix is included.
	Prefix codec.Key
	// Start is an inclusive lower bound.
	Start codec.Key
	// End is an exclusive upper bound.
	End codec.Key
	// Limit caps the entries of one page; zero means DefaultPageSize.
	Limit int
	// Reverse lists in descending key order.
	Reverse bool
	// Cursor continues after the last entry of a previous page.
	Cursor string
	// IncludeExpired lists expired-but-unswept rows too (dump, browse).
	IncludeExpired bool
	// Unbounded drops the Prefix||0xFF upper bound, so that rows whose raw
	// key starts with 0xFF (undecodable) are included; used by Dump.
	Unbounded bool
}

// Page is one page of a listing.
type Page struct {
	Entries []Entry
	// Cursor is non-empty when more entries follow.
	Cursor string
}

// List reads one page of entries: a single statement, ascending by key
// unless Reverse. Only live rows unless IncludeExpired.
func (s *Store) List(ctx context.Context, opts ListOptions) (Page, error) {
	lo, hi, err := bounds(opts)
	if err != nil {
		return Page{}, err
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultPageSize
	}
	if opts.Cursor != "" {
		after, err := base64.RawURLEncoding.DecodeString(opts.Cursor)
		if err != nil {
			return Page{}, fmt.Errorf("%w: malformed cursor %q", ErrInvalidArgument, opts.Cursor)
		}
		if opts.Reverse {
			hi = after
		} else {
			lo = append(after, 0x00) // the smallest key greater than after
		}
	}
	rng, args := rangeWhere(lo, hi)
	where := []string{rng}
	if !opts.IncludeExpired {
		where = append(where, liveSQL)
		args = append(args, s.Now())
	}
	order := "ASC"
	if opts.Reverse {
		order = "DESC"
	}
	// One row more than asked tells whether another page follows, so the
	// last page never costs an extra, empty read.
	args = append(args, limit+1)
	q := "SELECT k, v, ver, expires_at FROM kv WHERE " + strings.Join(where, " AND ") + " ORDER BY k " + order + " LIMIT ?"
	entries, err := s.collect(ctx, q, args)
	if err != nil {
		return Page{}, err
	}
	page := Page{Entries: entries}
	if len(entries) > limit {
		page.Entries = entries[:limit]
		page.Cursor = base64.RawURLEncoding.EncodeToString(entries[limit-1].Raw)
	}
	return page, nil
}

// Scan streams every entry of a listing to fn, page by page (no
// transaction stays open between pages). opts.Limit caps the total; zero
// means no cap. fn may stop the scan by returning an error.
func (s *Store) Scan(ctx context.Context, opts ListOptions, fn func(Entry) error) error {
	total := opts.Limit
	seen := 0
	for {
		page := opts
		page.Limit = DefaultPageSize
		if total > 0 && total-seen < page.Limit {
			page.Limit = total - seen
		}
		p, err := s.List(ctx, page)
		if err != nil {
			return err
		}
		for _, e := range p.Entries {
			if err := fn(e); err != nil {
				return err
			}
		}
		seen += len(p.Entries)
		if p.Cursor == "" || (total > 0 && seen >= total) {
			return nil
		}
		opts.Cursor = p.Cursor
	}
}

// Dump streams every physical row under prefix (all rows for a nil or
// empty prefix), expired and undecodable ones included, in key order.
func (s *Store) Dump(ctx context.Context, prefix codec.Key, fn func(Entry) error) error {
	return s.Scan(ctx, ListOptions{Prefix: prefix, IncludeExpired: true, Unbounded: len(prefix) == 0}, fn)
}

// bounds turns list options into a byte range [lo, hi); hi nil means none.
func bounds(opts ListOptions) (lo, hi []byte, err error) {
	lo, err = codec.Encode(opts.Prefix)
	if err != nil {
		return nil, nil, err
	}
	if !opts.Unbounded {
		hi = codec.PrefixEnd(lo)
	}
	if opts.Start != nil {
		start, err := codec.Encode(opts.Start)
		if err != nil {
			return nil, nil, err
		}
		if bytes.Compare(start, lo) > 0 {
			lo = start
		}
	}
	if opts.End != nil {
		end, err := codec.Encode(opts.End)
		if err != nil {
			return nil, nil, err
		}
		if hi == nil || bytes.Compare(end, hi) < 0 {
			hi = end
		}
	}
	return lo, hi, nil
}

// collect runs a SELECT of (k, v, ver, expires_at) and decodes the rows.
func (s *Store) collect(ctx context.Context, q string, args []any) ([]Entry, error) {
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var k, v []byte
		var ver verCol
		var exp expiryCol
		if err := rows.Scan(&k, &v, &ver, &exp); err != nil {
			return nil, s.classify(err)
		}
		out = append(out, newEntry(k, v, ver, exp))
	}
	s.rowsRead.Add(int64(len(out)))
	return out, s.classify(rows.Err())
}
