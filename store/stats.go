package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

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
	// Undecodable groups the rows whose key does not decode.
	Undecodable bool
	Rows        int64
	Live        int64
	Expired     int64
	// Bytes is the encoded key plus value size of the rows; ExpiredBytes
	// that of the expired ones.
	Bytes        int64
	ExpiredBytes int64
	// Soon counts live rows that expire at or before CensusOptions.Soon.
	Soon int64
	// NextExpiry is the earliest expiry after now; OldestExpired the
	// earliest expiry among the expired rows.
	NextExpiry    *int64
	OldestExpired *int64
	// Expiring counts the live rows expiring in each slice of
	// CensusOptions.Expiring (nil unless asked for).
	Expiring []int64
}

// Stats summarises the whole store (or, from Census, a key range).
type Stats struct {
	Seq         int64
	Rows        int64
	Live        int64
	Expired     int64
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
	// JournalMode is the embedded database's journal mode ("" remote).
	JournalMode string
	// ByPrefix is in key order, the undecodable rows last.
	ByPrefix []PrefixStats
	// FirstUndecodable, FirstInvalid and FirstMalformed are the raw keys
	// of the first such rows (nil when there is none), for a report to
	// name one.
	FirstUndecodable, FirstInvalid, FirstMalformed []byte
	// OldestExpired is the earliest expiry among expired rows;
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
// to a server (each statement's answer is a handful of aggregate rows).
const (
	censusWindowFile   = 5000
	censusWindowRemote = 200000
)

// censusWindowTest, when positive, replaces the windows (tests of window
// boundaries).
var censusWindowTest int

// censusWindow is how many rows one aggregate statement examines.
func (s *Store) censusWindow() int {
	if censusWindowTest > 0 {
		return censusWindowTest
	}
	if s.target.Transport.Remote() {
		return censusWindowRemote
	}
	return censusWindowFile
}

// Stats counts every row at now: seq, the journal mode on a file, and a
// Census of the whole store.
func (s *Store) Stats(ctx context.Context, now int64) (Stats, error) {
	seq, err := s.Seq(ctx)
	if err != nil {
		return Stats{}, err
	}
	var journal string
	if s.target.Transport == TransportFile {
		if _, err := s.queryRow(ctx, "PRAGMA journal_mode", nil, &journal); err != nil {
			return Stats{}, err
		}
	}
	st, err := s.Census(ctx, CensusOptions{Now: now})
	st.Seq, st.JournalMode = seq, journal
	return st, err
}

// Census aggregates the rows of a range in SQL, on the server: counts,
// bytes and expiries per top-level key part, undecodable keys, invalid
// values and malformed columns. It reads windows of rows in key order
// (censusWindow rows per statement, no transaction across them), and only
// aggregates travel: memory stays flat whatever the store's size.
//
// A key is undecodable to the census when its structure is (an unknown
// tag, a truncated part, a missing terminator, a boolean byte other than 0
// or 1, a NaN number); a string part of invalid UTF-8 is not seen here
// (the row is still flagged where it is shown).
func (s *Store) Census(ctx context.Context, opts CensusOptions) (Stats, error) {
	now := opts.Now
	if now == 0 {
		now = s.Now()
	}
	soon := opts.Soon
	if soon < now {
		soon = now
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
	var st Stats
	groups := map[string]*PrefixStats{}
	var undecodable *PrefixStats
	window := s.censusWindow()
	for cursor := lo; cursor != nil; {
		q, args := censusSQL(cursor, hi, window, now, soon, hist, len(opts.Prefix) == 0 && bytes.Equal(cursor, lo))
		rows, err := s.query(ctx, q, args...)
		if err != nil {
			return st, err
		}
		var last []byte
		n, examined := 0, int64(0)
		for rows.Next() {
			var g, maxK, firstBad, firstOdd, firstUndecodable []byte
			var c PrefixStats
			var next, oldest expiryCol
			var bad, odd, nullValues int64
			var keyless bool
			var maxVer, seq sql.NullInt64
			dest := []any{&g, &c.Rows, &c.Live, &c.Bytes, &c.ExpiredBytes, &c.Soon, &next, &oldest,
				&maxK, &firstBad, &firstOdd, &firstUndecodable, &bad, &odd, &maxVer, &seq, &nullValues, &keyless}
			if hist.Buckets > 0 {
				c.Expiring = make([]int64, hist.Buckets)
				for i := range c.Expiring {
					dest = append(dest, &c.Expiring[i])
				}
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return st, s.classify(err)
			}
			if n == 0 { // window-wide, repeated on every row
				st.InvalidValues += bad
				st.Malformed += odd
				st.NullValues += nullValues
				st.MaxVer = max(st.MaxVer, maxVer.Int64)
				st.SeqAfter = nil
				if seq.Valid {
					st.SeqAfter = &seq.Int64
				}
			}
			n++
			c.Expired = c.Rows - c.Live
			c.NextExpiry, c.OldestExpired = next.at, oldest.at
			var into *PrefixStats
			if keyless {
				// The rows whose k is NULL, outside the window's key
				// range: undecodable, and no key to name or continue from.
				st.NullKeys += c.Rows
				if undecodable == nil {
					undecodable = &PrefixStats{Undecodable: true}
				}
				undecodable.add(c)
				continue
			}
			if examined == 0 || bytes.Compare(maxK, last) > 0 {
				last = maxK
			}
			examined += c.Rows
			st.FirstInvalid = firstKey(st.FirstInvalid, firstBad)
			st.FirstMalformed = firstKey(st.FirstMalformed, firstOdd)
			if firstUndecodable != nil {
				st.FirstUndecodable = firstKey(st.FirstUndecodable, firstUndecodable)
				if undecodable == nil {
					undecodable = &PrefixStats{Undecodable: true}
				}
				into = undecodable
			} else {
				if g == nil {
					g = []byte{}
				}
				if into = groups[string(g)]; into == nil {
					into = &PrefixStats{Raw: g}
					var perr error
					if len(g) > 0 {
						into.Part, _, perr = codec.DecodePart(g)
					}
					if perr != nil {
						// The SQL checks a part's structure, Go its
						// content too (a string of invalid UTF-8).
						st.FirstUndecodable = firstKey(st.FirstUndecodable, g)
						if undecodable == nil {
							undecodable = &PrefixStats{Undecodable: true}
						}
						into = undecodable
					} else {
						groups[string(g)] = into
					}
				}
			}
			into.add(c)
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return st, s.classify(err)
		}
		rows.Close()
		s.rowsRead.Add(int64(n))
		cursor = nil
		if examined >= int64(window) { // a full window: more rows may follow
			cursor = append(last, 0x00)
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		st.ByPrefix = append(st.ByPrefix, *groups[k])
	}
	if undecodable != nil {
		st.ByPrefix = append(st.ByPrefix, *undecodable)
		st.Undecodable = undecodable.Rows
	}
	var oldest *PrefixStats
	for i, p := range st.ByPrefix {
		st.Rows += p.Rows
		st.Live += p.Live
		st.Expired += p.Expired
		if p.OldestExpired != nil && (oldest == nil || *p.OldestExpired < *oldest.OldestExpired) {
			oldest = &st.ByPrefix[i]
		}
	}
	if oldest != nil {
		st.OldestExpired = oldest.OldestExpired
		if opts.OldestKey {
			glo, ghi := lo, hi
			if !oldest.Undecodable && len(oldest.Raw) > 0 {
				glo, ghi = oldest.Raw, codec.PrefixEnd(oldest.Raw)
			}
			w, args := rangeWhere(glo, ghi)
			var k []byte
			if _, err := s.queryRow(ctx, "SELECT k FROM kv WHERE "+w+" AND expires_at = ? ORDER BY k LIMIT 1", append(args, *oldest.OldestExpired), &k); err != nil {
				return st, err
			}
			st.OldestExpiredKey = k
		}
	}
	return st, nil
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

// partLenSQL is the length in bytes of the key part that starts at byte
// off (an SQL expression, counting from 1) of the key column col, or 0
// when no well-formed part starts there: an unknown tag, a truncated
// number, bigint or boolean, a boolean byte other than 0 or 1, a NaN
// number, a bytes or string payload without terminator. A payload ends at
// its first 0x00 that is not an escape (0x00 0xFF): in a well-formed key
// that 0x00 is followed by the next part's tag (0x01..0x05) or ends the
// key (a 0x00 after it is looked for too), and instr finds it (replace()
// cannot: it ignores a pattern that starts with 0x00).
func partLenSQL(col, off string) string {
	const none = 1 << 40
	tag := fmt.Sprintf("substr(%s, %s, 1)", col, off)
	r := fmt.Sprintf("substr(%s, %s + 1)", col, off)
	var term strings.Builder
	term.WriteString("min(")
	for t := 0; t <= 5; t++ {
		fmt.Fprintf(&term, "coalesce(nullif(instr(%s, x'000%d'), 0), %d), ", r, t, none)
	}
	fmt.Fprintf(&term, "CASE WHEN substr(%[1]s, -1) = x'00' THEN length(%[1]s) ELSE %[2]d END)", r, none)
	num := fmt.Sprintf("substr(%s, %s + 1, 8)", col, off)
	return "(CASE" +
		fmt.Sprintf(" WHEN %s = x'03' AND length(%s) >= %s + 8 AND %s <= x'FFF0000000000000' AND %s >= x'000FFFFFFFFFFFFF' THEN 9", tag, col, off, num, num) +
		fmt.Sprintf(" WHEN %s = x'04' AND length(%s) >= %s + 8 THEN 9", tag, col, off) +
		fmt.Sprintf(" WHEN %s = x'05' AND substr(%s, %s + 1, 1) IN (x'00', x'01') THEN 2", tag, col, off) +
		fmt.Sprintf(" WHEN %s IN (x'01', x'02') AND %s < %d THEN 1 + %s", tag, term.String(), none, term.String()) +
		" ELSE 0 END)"
}

// censusSQL aggregates the next window of rows from lo. The recursive
// part walks each key part by part: a key decodes when its walk ends
// exactly at its end; its group is its first part. Liveness is the
// reference's SQL rule, so a row whose expires_at is TEXT is live, as every
// read sees it. Every aggregate row repeats the window-wide counts of
// invalid values and malformed columns (one statement, no second pass).
//
// With keyless, the window also aggregates every row whose k is NULL (no
// key range holds one): a last aggregate row, flagged, with no key.
func censusSQL(lo, hi []byte, window int, now, soon int64, hist ExpiringOptions, keyless bool) (string, []any) {
	rng, args := rangeWhere(lo, hi)
	first := partLenSQL("k", "1")
	step := partLenSQL("k", "(off + n)")
	whole := func(col string) string {
		return fmt.Sprintf("(typeof(%[1]s) = 'integer' OR (typeof(%[1]s) = 'real' AND %[1]s = CAST(%[1]s AS INTEGER)))", col)
	}
	w := "SELECT k, v, ver, expires_at FROM kv WHERE " + rng + " ORDER BY k LIMIT ?"
	if keyless {
		w = "SELECT * FROM (" + w + ") UNION ALL SELECT k, v, ver, expires_at FROM kv WHERE k IS NULL"
	}
	// cols is one aggregate row: its group g, its max, first invalid,
	// first malformed and first undecodable key, whether it holds the
	// NULL keys, then the window-wide figures and the slices.
	cols := func(g, maxK, firstBad, firstOdd, firstUndecodable, keyless string) string {
		return "SELECT " + g + ", count(*), sum(r.live), sum(r.b), sum(CASE WHEN r.live THEN 0 ELSE r.b END), " +
			"sum(r.live AND r.e IS NOT NULL AND r.e <= ?), min(CASE WHEN r.live THEN r.e END), min(CASE WHEN NOT r.live THEN r.e END), " +
			maxK + ", " + firstBad + ", " + firstOdd + ", " + firstUndecodable + ", " +
			"(SELECT sum(bad) FROM r), (SELECT sum(odd) FROM r), " +
			"(SELECT max(CAST(ver AS INTEGER) + (ver > CAST(ver AS INTEGER))) FROM w WHERE typeof(ver) IN ('integer', 'real')), " +
			"(SELECT seq FROM kv_meta WHERE id = 0), (SELECT sum(nv) FROM r), " + keyless + expiringSQL(hist)
	}
	q := "WITH RECURSIVE w AS (" + w + "), " +
		// A NULL v (another program's schema) has no length and is no
		// JSON: it counts 0 bytes and as an invalid value.
		"r AS MATERIALIZED (SELECT k, expires_at AS e, (expires_at IS NULL OR expires_at > ?) AS live, " +
		"coalesce(length(k), 0) + coalesce(length(CAST(v AS BLOB)), 0) AS b, coalesce(NOT json_valid(CAST(v AS TEXT)), 1) AS bad, " +
		"NOT (" + whole("ver") + " AND (expires_at IS NULL OR " + whole("expires_at") + ")) AS odd, v IS NULL AS nv, " +
		first + " AS n FROM w), " +
		"p(k, off, n, g) AS (SELECT k, 1, n, substr(k, 1, n) FROM r WHERE k IS NOT NULL " +
		"UNION ALL SELECT k, off + n, " + step + ", g FROM p WHERE n > 0 AND off + n <= length(k)), " +
		"d AS (SELECT k, CASE WHEN length(k) = 0 THEN x'' WHEN n > 0 AND off + n = length(k) + 1 THEN g END AS g FROM p WHERE NOT (n > 0 AND off + n <= length(k))) " +
		cols("d.g", "max(r.k)", "min(CASE WHEN r.bad THEN r.k END)", "min(CASE WHEN r.odd THEN r.k END)", "min(CASE WHEN d.g IS NULL THEN r.k END)", "0") +
		" FROM r JOIN d ON d.k = r.k GROUP BY d.g"
	args = append(args, window, now)
	slices := func() {
		args = append(args, soon)
		for i := range hist.Buckets {
			// The slice bounds are integers computed here: the statement
			// compares plain numbers.
			args = append(args, now+hist.Span*int64(i)/int64(hist.Buckets), now+hist.Span*int64(i+1)/int64(hist.Buckets))
		}
	}
	slices()
	if keyless {
		// The rows whose k is NULL join no walk: one more aggregate row,
		// when there are any (GROUP BY gives none for no row; sqld's
		// parser refuses a HAVING without it).
		q += " UNION ALL " + cols("NULL", "NULL", "NULL", "NULL", "NULL", "1") + " FROM r WHERE r.k IS NULL GROUP BY r.k"
		slices()
	}
	return q, args
}

// expiringSQL is one column per slice of hist: the live rows whose expiry
// falls in it (two parameters each, the slice's bounds).
func expiringSQL(hist ExpiringOptions) string {
	var b strings.Builder
	for range hist.Buckets {
		b.WriteString(", sum(r.live AND r.e IS NOT NULL AND r.e > ? AND r.e <= ?)")
	}
	return b.String()
}
