package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"

	"kvdeck/codec"
)

// PrefixStats counts the rows under one top-level key part.
type PrefixStats struct {
	// Part is the first key part; zero when Undecodable or for the empty
	// key (Raw is then empty).
	Part codec.Part
	// Raw is the encoded first part (empty for the empty key; nil when
	// Undecodable).
	Raw []byte
	// Undecodable groups the rows whose first part does not decode.
	Undecodable bool
	Rows        int64
	Live        int64
	Expired     int64
	// Bytes is the encoded key plus value size of the rows; ExpiredBytes
	// that of the expired ones (with CensusOptions.Expiries).
	Bytes        int64
	ExpiredBytes int64
	// Soon counts live rows that expire at or before CensusOptions.Soon.
	Soon int64
	// NextExpiry is the earliest expiry after now; OldestExpired the
	// earliest expiry among the expired rows (with CensusOptions.Expiries).
	NextExpiry    *int64
	OldestExpired *int64
	// Expiring counts the live rows expiring in each slice of
	// CensusOptions.Expiring (nil unless asked for).
	Expiring []int64
}

// Stats summarises the whole store (or, from Census, a key range).
type Stats struct {
	Seq     int64
	Rows    int64
	Live    int64
	Expired int64
	// Undecodable counts the rows whose key does not decode: their first
	// part (and NULL keys), with CensusOptions.Check any part.
	Undecodable int64
	// InvalidValues counts rows whose value is not valid JSON.
	InvalidValues int64
	// Malformed counts rows whose ver or expires_at holds something the
	// reference never writes (a fractional REAL, TEXT, a BLOB).
	Malformed int64
	// NullKeys counts the rows whose k is NULL (Census of the whole store
	// only: no key range holds them), among Undecodable; NullValues those
	// whose v is NULL, among InvalidValues. Another program's rows: the
	// reference never writes either.
	NullKeys, NullValues int64
	// TypedKeys counts, among Undecodable, the rows whose k is a number or
	// TEXT rather than a BLOB (Census of the whole store only): another
	// program's rows, below every key in SQLite's order, so no read by
	// key or range finds them, the reference's included.
	TypedKeys int64
	// JournalMode is the embedded database's journal mode ("" remote).
	JournalMode string
	// ByPrefix is in key order, the undecodable rows last.
	ByPrefix []PrefixStats
	// FirstUndecodable, FirstInvalid and FirstMalformed are the raw keys
	// of the first such rows (nil when there is none), for a report to
	// name one.
	FirstUndecodable, FirstInvalid, FirstMalformed []byte
	// OldestExpired is the earliest expiry among expired rows (with
	// CensusOptions.Expiries);
	// OldestExpiredKey the raw key of a row that has it (Census with
	// CensusOptions.OldestKey only).
	OldestExpired    *int64
	OldestExpiredKey []byte
	// MaxVer is the highest stamp among the rows (a REAL one as its
	// ceiling; TEXT and BLOB ones are no stamps), 0 when there is none.
	MaxVer int64
	// SeqAfter is kv_meta's seq as the census's last statement read it
	// (nil when it read no row, or row 0 is missing): no writer issues a
	// stamp above seq, so MaxVer > *SeqAfter means kv_meta fell behind the
	// rows (doctor's store.stamps-above-seq).
	SeqAfter *int64
}

// CensusOptions select what Census counts.
type CensusOptions struct {
	// Now decides which rows are expired; zero means the store's clock.
	Now int64
	// Prefix limits the census to keys under it; empty counts every row.
	Prefix codec.Key
	// Soon, when after Now, is the horizon PrefixStats.Soon counts to.
	Soon int64
	// OldestKey also finds Stats.OldestExpiredKey (one more request when
	// some row is expired).
	OldestKey bool
	// Expiring, when Buckets > 0, also counts the live rows that expire
	// in each of Buckets equal slices of the Span ms after now (the
	// Sweep tab's "next hour" chart), in the same statements.
	Expiring ExpiringOptions
	// Expiries also finds, per prefix, NextExpiry, OldestExpired and
	// ExpiredBytes (always with Check or OldestKey).
	Expiries bool
	// Check also checks every row, as doctor does: its whole key
	// (Undecodable then also counts the rows whose key does not decode
	// past a first part that does; they stay in that part's group), its
	// value's JSON (InvalidValues, NullValues), its ver and expires_at
	// types (Malformed) and the highest stamp (MaxVer), and names the
	// first row of each kind (FirstUndecodable, FirstInvalid,
	// FirstMalformed: one more statement when there is one). Without it
	// the census only counts: plain range aggregates, about three times
	// one full-table count (the checks cost several times that: a JSON
	// parse of every value, a walk of every key), and Undecodable counts
	// the rows whose first part does not decode.
	Check bool
}

// ExpiringOptions slice the time after now for PrefixStats.Expiring:
// slice i holds the rows with now + i*Span/Buckets < expires_at <=
// now + (i+1)*Span/Buckets.
type ExpiringOptions struct {
	Span    int64
	Buckets int
}

// maxExpiringBuckets bounds the columns a census statement adds.
const maxExpiringBuckets = 60

// The rows one census statement aggregates: short reads on a file (a long
// read on a rollback-journal file blocks a service's commit), few requests
// to a server (a store of a million rows in one or two). Its answer is a
// row of figures per top-level prefix in the window, at most
// censusMaxRanges of them (about 250 bytes each over a server: far from
// sqld's 10 MB however many prefixes a window holds).
const (
	censusWindowFile   = 5000
	censusWindowRemote = 1000000
	censusMaxRanges    = 10000
)

// censusWindow is how many rows one aggregate statement examines.
func (s *Store) censusWindow() int {
	if s.knobs.censusWindow > 0 {
		return s.knobs.censusWindow
	}
	return s.conn.traits().census
}

// Stats counts every row at now: seq, the journal mode on a file, and a
// Census of the whole store (without the row checks).
func (s *Store) Stats(ctx context.Context, now int64) (Stats, error) {
	return s.StatsWith(ctx, CensusOptions{Now: now})
}

// StatsWith is Stats with a whole-store Census of opts (its Prefix
// ignored).
//
// Seq is the one the census's last statement read (no request of its
// own; a remote stats is one request on a store of up to 1M rows).
func (s *Store) StatsWith(ctx context.Context, opts CensusOptions) (Stats, error) {
	var journal string
	if s.conn.traits().ownsFiles {
		if _, err := s.queryRow(ctx, "PRAGMA journal_mode", nil, &journal); err != nil {
			return Stats{}, err
		}
	}
	opts.Prefix = nil
	st, err := s.Census(ctx, opts)
	if err != nil {
		return st, err
	}
	if st.SeqAfter != nil {
		st.Seq = *st.SeqAfter
	} else if st.Seq, err = s.Seq(ctx); err != nil { // says what is missing
		return st, err
	}
	st.JournalMode = journal
	return st, nil
}

// Census aggregates the rows of a range in SQL, on the server: counts,
// bytes and expiries per top-level key part, undecodable keys, invalid
// values and malformed columns. Each statement (census.go) finds the
// top-level prefix boundaries of a window of rows by seeking from one to
// the next through the primary key, then aggregates each prefix's range
// with plain range aggregates; no transaction spans two statements, and
// only aggregates travel: memory stays flat whatever the store's size.
//
// A key is undecodable to the census when its structure is (an unknown
// tag, a truncated part, a missing terminator, a boolean byte other than 0
// or 1, a NaN number); a string part of invalid UTF-8 is seen in the first
// part only (the row is still flagged where it is shown).
func (s *Store) Census(ctx context.Context, opts CensusOptions) (Stats, error) {
	now := opts.Now
	if now == 0 {
		now = s.Now()
	}
	lo, hi, err := bounds(ListOptions{Prefix: opts.Prefix, Unbounded: len(opts.Prefix) == 0})
	if err != nil {
		return Stats{}, err
	}
	hist := opts.Expiring
	if hist.Buckets > maxExpiringBuckets || hist.Buckets < 0 || hist.Buckets > 0 && hist.Span < int64(hist.Buckets) {
		return Stats{}, fmt.Errorf("%w: expiring slices: %d slices of a %d ms span (1 to %d slices of at least 1 ms)",
			ErrInvalidArgument, hist.Buckets, hist.Span, maxExpiringBuckets)
	}
	q := censusQuery{now: now, soon: max(opts.Soon, now), hist: hist, hi: hi, ranges: or(s.knobs.censusRanges, censusMaxRanges),
		check: opts.Check, details: opts.Expiries || opts.Check || opts.OldestKey}
	kind := windowCensus
	if opts.Check {
		kind = windowChecked
	}
	acc, w := newCensusAcc(), s.newReadWindow(kind, s.censusWindow())
	for cursor, first := lo, true; cursor != nil; first = false {
		q.lo, q.keyless = cursor, first && len(opts.Prefix) == 0
		if cursor, err = s.censusStep(ctx, q, w, acc); err != nil {
			return acc.st, err
		}
	}
	st := acc.finish()
	return st, s.firstKeys(ctx, acc, &st, lo, hi, opts.OldestKey)
}

// firstKeys names, in one more statement, the first row of each kind the
// checks counted and, with oldest, a row whose expiry is st.OldestExpired
// (within its prefix's range when that prefix decodes); no statement when
// there is nothing to name.
func (s *Store) firstKeys(ctx context.Context, acc *censusAcc, st *Stats, lo, hi []byte, oldest bool) error {
	var from *checkFrom
	var at int64
	if oldest && st.OldestExpired != nil {
		at = *st.OldestExpired
		for _, p := range st.ByPrefix {
			if p.OldestExpired != nil && *p.OldestExpired == at {
				from = &checkFrom{start: lo}
				if !p.Undecodable && len(p.Raw) > 0 {
					from.start = p.Raw
				}
				break
			}
		}
	}
	if from == nil && acc.from[checkKey].start == nil && acc.from[checkValue].start == nil && acc.from[checkMalformed].start == nil {
		return nil
	}
	text, args := acc.firstKeysSQL(hi, from, at)
	var keys [4]sql.NullString
	err := s.readShort(ctx, text, args, func(rows resultRows) error {
		if !rows.Next() {
			return s.classify(rows.Err())
		}
		return s.classify(rows.Scan(&keys[0], &keys[1], &keys[2], &keys[3]))
	})
	if err != nil {
		return err
	}
	st.FirstUndecodable = firstKey(st.FirstUndecodable, jsonHex(keys[0].String))
	st.FirstInvalid, st.FirstMalformed, st.OldestExpiredKey = jsonHex(keys[1].String), jsonHex(keys[2].String), jsonHex(keys[3].String)
	return nil
}

// add merges the figures of another window into p.
func (p *PrefixStats) add(c PrefixStats) {
	p.Rows += c.Rows
	p.Live += c.Live
	p.Expired += c.Expired
	p.Bytes += c.Bytes
	p.ExpiredBytes += c.ExpiredBytes
	p.Soon += c.Soon
	p.NextExpiry = earliest(p.NextExpiry, c.NextExpiry)
	p.OldestExpired = earliest(p.OldestExpired, c.OldestExpired)
	if c.Expiring != nil && p.Expiring == nil {
		p.Expiring = make([]int64, len(c.Expiring))
	}
	for i, n := range c.Expiring {
		p.Expiring[i] += n
	}
}

func firstKey(a, b []byte) []byte {
	if a == nil || (b != nil && bytes.Compare(b, a) < 0) {
		return b
	}
	return a
}
