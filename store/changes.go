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

// The change feed: the rows stamped after a point, in versionstamp order.
//
// The reference stamps every set with the store-wide seq, so the rows
// written since seq S are exactly those with ver > S. Without an index on
// ver that is a scan of the whole table, so Changes
//
//   - reads nothing when seq has not moved past After (on a file, PRAGMA
//     data_version answers that without touching the table; over a server
//     the check is folded into the one statement a refresh sends);
//   - examines the table in windows of rowids (ChangesWindowFile rows per
//     statement on a file, so that no read holds the lock long;
//     ChangesWindowRemote over a server, so that a store of up to a million
//     rows is one request) and only rows that match travel;
//   - with an index on ver (AddVerIndex, `kvdeck index add`) reads the
//     changed rows through it in one statement: its cost follows the
//     number of changes, not the size of the store.
//
// Deletions and expiries issue no stamp: a reader learns of them by
// re-reading what it had seen (ChangesOptions.Recheck, GetRawMany).

// Rows one statement of a change scan examines when kv has no index on ver
// (rows in a window of rowids; a window holds at most that many rows).
//
// Measured on 1M rows (BenchmarkChangesLarge, 2 shared cores), a refresh
// after one commit, beside Version (what every refresh already pays) and
// one raw statement scanning for ver > After:
//
//	          idle     moved    raw scan  indexed  Version
//	file      0.02 ms  331 ms   399 ms    9.5 ms   0.9 ms
//	sqld      24 ms    114 ms   71 ms     11 ms    23 ms
//
// On a file the windows cost no more than the raw scan and never hold the
// lock longer than a window (~1.5 ms); over sqld the refresh is one
// request whose row count (24 ms) is Version's.
const (
	ChangesWindowFile   = 5000
	ChangesWindowRemote = 1000000
)

// changesWindowTest, when positive, replaces the windows (tests of window
// boundaries).
var changesWindowTest int

// VerIndex is the name of the index `kvdeck index add` creates on kv(ver).
const VerIndex = "kvdeck_kv_ver"

// ChangesOptions select a page of the change feed.
type ChangesOptions struct {
	// After is the position the page starts after: rows with ver > After,
	// or, when AfterKey is not nil, ver = After and k > AfterKey too (a
	// page cut inside one commit). Pass ChangesPage.Next and NextKey.
	After    int64
	AfterKey []byte
	// Prefix limits the feed to keys under it (empty: every row).
	Prefix codec.Key
	// Prefixes, when not empty, limit the feed to keys under any of them
	// instead (a watch of several prefixes in one read).
	Prefixes []codec.Key
	// Limit caps the rows of a page; zero means DefaultPageSize.
	Limit int
	// MaxBytes caps the estimated size of a page's rows; zero means 4 MB.
	MaxBytes int64
	// Recheck lists raw keys to re-read in the same request; their live
	// rows come back in ChangesPage.Rechecked. A reader finds deletions
	// and expiries of rows it had read so.
	Recheck [][]byte
}

// ChangesPage is one page of the change feed.
type ChangesPage struct {
	// Entries are the rows stamped after the position, ascending by ver
	// and then key. A row rewritten several times since is here once, as
	// it is now. Rows whose ver is not a whole number (a foreign writer's)
	// carry no usable stamp and are never in the feed.
	Entries []Entry
	// Version is the store's seq and row count at the read.
	Version Version
	// Next and NextKey are where the next page starts (ChangesOptions
	// After and AfterKey). When More is false, every row stamped up to
	// Next has been returned and NextKey is nil.
	Next    int64
	NextKey []byte
	// More is true when the page was cut by Limit or MaxBytes.
	More bool
	// Rechecked holds, in the order of ChangesOptions.Recheck, the live
	// row at each key, nil when the key is absent or expired.
	Rechecked []*Entry
	// Indexed is true when the read went through an index on ver.
	Indexed bool
	// Windows counts the windows of rowids examined (0 when Indexed or
	// when seq had not moved), Statements the statements run: the cost of
	// the page.
	Windows, Statements int
}

// The kinds of row in a change statement's answer.
const (
	rowHeader  = 0 // seq, row count, next window, whether ver is indexed
	rowChange  = 1 // a row stamped after the position
	rowRecheck = 2 // the live row at a rechecked key
)

// Changes reads one page of the change feed (see the top of this file for
// the cost). On a file it first asks Version (a pragma while nothing was
// committed); over a server the first statement carries seq and the row
// count and reads rows only when seq has moved past After. A store of up
// to ChangesWindowRemote rows costs one request; a larger one a request
// per window while kv has no index on ver.
func (s *Store) Changes(ctx context.Context, opts ChangesOptions) (ChangesPage, error) {
	q := changeQuery{after: opts.After, afterKey: opts.AfterKey, limit: opts.Limit, budget: opts.MaxBytes, now: s.Now()}
	if q.limit <= 0 {
		q.limit = DefaultPageSize
	}
	if q.budget <= 0 {
		q.budget = remotePageBytes
	}
	prefixes := opts.Prefixes
	if len(prefixes) == 0 {
		prefixes = []codec.Key{opts.Prefix}
	}
	for _, p := range prefixes {
		lo, hi, err := bounds(ListOptions{Prefix: p, Unbounded: len(p) == 0})
		if err != nil {
			return ChangesPage{}, err
		}
		q.ranges = append(q.ranges, [2][]byte{lo, hi})
	}
	page := ChangesPage{Next: opts.After, NextKey: opts.AfterKey}
	remote := s.target.Transport.Remote()
	if !remote {
		v, err := s.Version(ctx)
		if err != nil {
			return page, err
		}
		page.Version = v
		page.Statements++
		if !pastPosition(v.Seq, opts) && len(opts.Recheck) == 0 {
			return page, nil
		}
	}
	q.window = ChangesWindowFile
	if remote {
		q.window = ChangesWindowRemote
	}
	if changesWindowTest > 0 {
		q.window = changesWindowTest
	}
	q.indexed = s.watch.verIndexed.Load() == indexYes
	var found []Entry
	var sizes []int64
	cut := false
	first := true
	for {
		q.header, q.recheck, q.count = first, nil, first && remote
		if first {
			q.recheck = opts.Recheck
		}
		a, err := s.changeStatement(ctx, q)
		if err != nil && !q.indexed && strings.Contains(err.Error(), "no such column: rowid") {
			// kv is a WITHOUT ROWID table (not the reference's): only
			// an index on ver lets the feed read it.
			var indexed bool
			if _, ierr := s.queryRow(ctx, "SELECT "+verIndexedSQL, nil, &indexed); ierr == nil && indexed {
				s.watch.verIndexed.Store(indexYes)
				q.indexed = true
				continue
			}
			return page, fmt.Errorf("the change feed walks kv by rowid, and this kv is a WITHOUT ROWID table; `kvdeck index add` gives it an index on ver to read changes through: %w", err)
		}
		if err != nil {
			return page, err
		}
		page.Statements++
		if first {
			s.watch.verIndexed.Store(map[bool]int32{true: indexYes, false: indexNo}[a.indexed])
			if a.indexed != q.indexed && pastPosition(a.seq, opts) {
				// The index came or went since the last page: read again
				// the way that suits it.
				q.indexed = a.indexed
				continue
			}
			if remote {
				page.Version = Version{Seq: a.seq, Rows: a.rows}
			}
			page.Indexed, page.Rechecked, q.seq = a.indexed, a.recheck, a.seq
		}
		found = append(found, a.found...)
		sizes = append(sizes, a.sizes...)
		cut = cut || a.cut
		first = false
		if !pastPosition(q.seq, opts) || q.indexed {
			break
		}
		page.Windows++
		if a.nextLo == nil {
			break
		}
		q.start = a.nextLo
	}
	// Each window answered its lowest rows by (ver, k) up to the limits;
	// the lowest of their union up to the same limits are the page.
	order := make([]int, len(found))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return changeLess(found[order[i]], found[order[j]]) })
	var used int64
	for _, i := range order {
		if len(page.Entries) == q.limit || (len(page.Entries) > 0 && used >= q.budget) {
			cut = true
			break
		}
		page.Entries = append(page.Entries, found[i])
		used += sizes[i]
	}
	if n := len(page.Entries); cut && n > 0 {
		last := page.Entries[n-1]
		page.Next, page.NextKey, page.More = last.Ver, last.Raw, true
	} else if q.seq > page.Next || (q.seq == page.Next && page.NextKey != nil) {
		page.Next, page.NextKey = q.seq, nil
	}
	return page, nil
}

// What Changes knows of an index on ver (versionWatch.verIndexed).
const (
	indexUnknown = iota
	indexNo
	indexYes
)

// pastPosition reports whether rows may be stamped past the position of
// opts at seq: seq moved past After, or a page was cut inside commit
// After (AfterKey set), whose later rows are still to read.
func pastPosition(seq int64, opts ChangesOptions) bool {
	return seq > opts.After || (seq == opts.After && opts.AfterKey != nil)
}

// changeLess orders rows by (ver, raw key): the order of the feed.
func changeLess(a, b Entry) bool {
	if a.Ver != b.Ver {
		return a.Ver < b.Ver
	}
	return bytes.Compare(a.Raw, b.Raw) < 0
}

// changeQuery is one statement of a change scan.
type changeQuery struct {
	after    int64
	afterKey []byte
	ranges   [][2][]byte // the key ranges of the prefixes: [lo, hi)
	limit    int
	budget   int64
	window   int
	now      int64
	// start is the first rowid of the window; nil: the smallest.
	start *int64
	// seq caps the stamps of the statements after the first (0: the
	// statement's own seq), so that a row stamped during a scan of
	// several windows waits for the next page: its commit's other rows
	// may lie in a window already read.
	seq     int64
	indexed bool // read through the index on ver, no windows
	header  bool // answer the header row
	count   bool // the header counts the rows (a file asks Version instead)
	recheck [][]byte
}

// changeAnswer is what one statement answered.
type changeAnswer struct {
	seq, rows int64
	indexed   bool
	nextLo    *int64
	found     []Entry
	sizes     []int64
	cut       bool
	recheck   []*Entry
}

// wholeVerSQL keeps the rows whose ver is a whole number: the only ones
// with a place in stamp order.
const wholeVerSQL = "(typeof(ver) = 'integer' OR (typeof(ver) = 'real' AND ver = CAST(ver AS INTEGER)))"

// verIndexedSQL is 1 when kv has a full index whose first column is ver.
const verIndexedSQL = "(SELECT count(*) > 0 FROM pragma_index_list('kv') AS l, pragma_index_info(l.name) AS i WHERE l.partial = 0 AND i.seqno = 0 AND i.name = 'ver')"

// sql renders the statement. Its answer's columns are (kind, k, v, ver,
// expires_at, a, b, c): a header row has seq in ver, the row count in a
// (NULL on a file), the next window's first rowid in b (NULL when none),
// "indexed" in c; a change row has its estimated size in a; a recheck row
// its position in the recheck list in a.
func (q changeQuery) sql() (string, []any) {
	var args []any
	var with string
	where := []string{"ver > ?"}
	args = append(args, q.after)
	if q.afterKey != nil {
		where[0] = "(ver > ? OR (ver = ? AND k > ?))"
		args = append(args, q.after, q.afterKey)
	}
	if q.seq == 0 {
		where = append(where, "ver <= (SELECT seq FROM kv_meta WHERE id = 0)")
	} else {
		where = append(where, "ver <= ?")
		args = append(args, q.seq)
	}
	where = append(where, wholeVerSQL)
	var rngs []string
	for _, r := range q.ranges {
		rng, rargs := rangeWhere(r[0], r[1])
		rngs = append(rngs, "("+rng+")")
		args = append(args, rargs...)
	}
	where = append(where, "("+strings.Join(rngs, " OR ")+")")
	if !q.indexed {
		// b is the window [lo, hi] of rowids, starting at the first row
		// at or after start; hi is below lo (an empty range: one seek)
		// while seq has not moved past after.
		start, sargs := "(SELECT min(rowid) FROM kv)", []any{}
		if q.start != nil {
			start, sargs = "(SELECT min(rowid) FROM kv WHERE rowid >= ?)", []any{*q.start}
		}
		with = "WITH b(lo, hi) AS (SELECT s, CASE WHEN (SELECT seq FROM kv_meta WHERE id = 0) > ? THEN s + ? - 1 ELSE s - 1 END FROM (SELECT " + start + " AS s)) "
		moved := q.after
		if q.afterKey != nil {
			moved-- // a page cut inside commit after: its other rows follow
		}
		args = append(append([]any{moved, q.window}, sargs...), args...)
		where = append(where, "rowid BETWEEN (SELECT lo FROM b) AND (SELECT hi FROM b)")
	}
	parts := []string{"SELECT * FROM (SELECT " + fmt.Sprint(rowChange) + ", k, v, ver, expires_at, c, NULL, NULL FROM (SELECT k, v, ver, expires_at, c, " +
		"sum(c) OVER (ORDER BY ver, k ROWS UNBOUNDED PRECEDING) - c AS run FROM (" +
		"SELECT k, v, ver, expires_at, " + rowCostSQL + " AS c FROM kv WHERE " + strings.Join(where, " AND ") + " ORDER BY ver, k LIMIT ?)) WHERE run < ?)"}
	args = append(args, q.limit+1, q.budget)
	if q.header || !q.indexed {
		count, next := "NULL", "NULL"
		if q.count {
			count = "(SELECT count(*) FROM kv)"
		}
		if !q.indexed {
			next = "(SELECT min(rowid) FROM kv WHERE rowid > (SELECT max(lo, hi) FROM b))"
		}
		parts = append(parts, "SELECT "+fmt.Sprint(rowHeader)+", NULL, NULL, seq, NULL, "+count+", "+next+", "+verIndexedSQL+" FROM kv_meta WHERE id = 0")
	}
	if len(q.recheck) > 0 {
		r, rargs := recheckSQL(q.recheck, q.now)
		parts = append(parts, r)
		args = append(args, rargs...)
	}
	return with + strings.Join(parts, " UNION ALL "), args
}

// recheckSQL selects (kind, k, v, ver, expires_at, position, NULL, NULL)
// of the live rows at raw keys, handed over as one JSON array of hex
// strings: one statement argument however many keys there are.
func recheckSQL(raws [][]byte, now int64) (string, []any) {
	var b strings.Builder
	b.WriteByte('[')
	for i, r := range raws {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%x"`, r)
	}
	b.WriteByte(']')
	return "SELECT " + fmt.Sprint(rowRecheck) + ", kv.k, kv.v, kv.ver, kv.expires_at, j.key, NULL, NULL FROM json_each(?) AS j JOIN kv ON kv.k = unhex(j.value) " +
		"WHERE kv.expires_at IS NULL OR kv.expires_at > ?", []any{b.String(), now}
}

// changeStatement runs one statement of a change scan.
func (s *Store) changeStatement(ctx context.Context, q changeQuery) (changeAnswer, error) {
	var a changeAnswer
	if len(q.recheck) > 0 {
		a.recheck = make([]*Entry, len(q.recheck))
	}
	text, args := q.sql()
	err := s.scanKinds(ctx, text, args, func(kind int, e Entry, x, y, z sql.NullInt64) {
		switch kind {
		case rowHeader:
			a.seq, a.rows, a.indexed = e.Ver, x.Int64, z.Int64 != 0
			if y.Valid {
				next := y.Int64
				a.nextLo = &next
			}
		case rowChange:
			a.found = append(a.found, e)
			a.sizes = append(a.sizes, x.Int64)
		case rowRecheck:
			if i := int(x.Int64); i >= 0 && i < len(a.recheck) {
				a.recheck[i] = &e
			}
		}
	})
	if err != nil {
		return a, err
	}
	// A window answers at most limit+1 rows and stops past the budget:
	// either way rows beyond its answer may match.
	var total int64
	for _, sz := range a.sizes {
		total += sz
	}
	a.cut = len(a.found) > q.limit || total >= q.budget
	return a, nil
}

// scanKinds runs a statement answering (kind, k, v, ver, expires_at, x, y,
// z) rows and hands each to fn.
func (s *Store) scanKinds(ctx context.Context, q string, args []any, fn func(kind int, e Entry, x, y, z sql.NullInt64)) error {
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		var kind int
		var k, v []byte
		var ver verCol
		var exp expiryCol
		var x, y, z sql.NullInt64
		if err := rows.Scan(&kind, &k, &v, &ver, &exp, &x, &y, &z); err != nil {
			return s.classify(err)
		}
		n++
		e := Entry{Ver: ver.n}
		if kind != rowHeader {
			e = newEntry(k, v, ver, exp)
		}
		fn(kind, e, x, y, z)
	}
	s.rowsRead.Add(n)
	return s.classify(rows.Err())
}

// GetRawMany returns the live rows at raw keys (decodable or not), in the
// same order, nil for a key that is absent or expired: one statement
// however many keys. A reader that remembers what it saw finds deletions
// and expiries so (plain deletes issue no stamp).
func (s *Store) GetRawMany(ctx context.Context, raws [][]byte) ([]*Entry, error) {
	out := make([]*Entry, len(raws))
	if len(raws) == 0 {
		return out, nil
	}
	q, args := recheckSQL(raws, s.Now())
	err := s.scanKinds(ctx, q, args, func(_ int, e Entry, x, _, _ sql.NullInt64) {
		if i := int(x.Int64); i >= 0 && i < len(out) {
			out[i] = &e
		}
	})
	return out, err
}
