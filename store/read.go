package store

import (
	"bytes"
	"context"
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
	var v bytesCol
	var ver verCol
	var exp expiryCol
	found, err = s.queryRow(ctx, "SELECT "+s.valueSQL()+", "+s.intSQL("ver")+", "+s.intSQL("expires_at")+" FROM kv WHERE k = ? AND "+liveSQL, []any{enc, s.Now()}, &v, &ver, &exp)
	if err != nil || !found {
		return Entry{}, false, err
	}
	return newEntryCols(bytesCol{b: enc}, v, ver, exp), true, nil
}

// GetRaw returns the physical row at a raw encoded key, expired or not, and
// whether its key decodes (Entry.KeyErr): the way to read a row whose key
// is undecodable.
func (s *Store) GetRaw(ctx context.Context, raw []byte) (e Entry, found bool, err error) {
	var v bytesCol
	var ver verCol
	var exp expiryCol
	if raw == nil {
		raw = []byte{}
	}
	found, err = s.queryRow(ctx, "SELECT "+s.valueSQL()+", "+s.intSQL("ver")+", "+s.intSQL("expires_at")+" FROM kv WHERE k = ?", []any{raw}, &v, &ver, &exp)
	if err != nil || !found {
		return Entry{}, false, err
	}
	return newEntryCols(bytesCol{b: raw}, v, ver, exp), true, nil
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
	q := "SELECT " + s.entrySQL() + " FROM kv WHERE k IN (?" + strings.Repeat(", ?", len(keys)-1) + ") AND " + liveSQL
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
	// ValueContains, when not empty, keeps only the rows whose stored
	// value contains these bytes: the server filters, so a search of a
	// large range sends only the matches back.
	ValueContains []byte
	// MaxBytes, when positive, ends a page where its rows' estimated size
	// (entryCostSQL) passes it; the page holds at least one row and says
	// by its Cursor that more follow.
	MaxBytes int64

	// expiredAt, when not zero, keeps only the rows expired at it
	// (ScanExpired).
	expiredAt int64
	// budget, when positive, ends the page where its rows' estimated size
	// in a server's answer passes it (Scan over a remote transport).
	budget int64
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
	lo, hi, err := listRange(opts)
	if err != nil {
		return Page{}, err
	}
	if opts.MaxBytes > 0 && (opts.budget <= 0 || opts.MaxBytes < opts.budget) {
		opts.budget = opts.MaxBytes
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultPageSize
	}
	var entries []Entry
	var end int64
	if filter, _ := s.listFilter(opts); filter != "" && s.conn.windowed() {
		entries, end, err = s.listWindows(ctx, opts, lo, hi, limit)
	} else {
		q, args := s.listQuery(opts, lo, hi, limit)
		entries, end, err = s.collectSized(ctx, q, args, opts.budget > 0)
	}
	if err != nil {
		return Page{}, err
	}
	cut := opts.budget > 0 && end >= opts.budget && len(entries) <= limit
	page := Page{Entries: entries}
	switch {
	case len(entries) > limit:
		page.Entries = entries[:limit]
		page.Cursor = base64.RawURLEncoding.EncodeToString(entries[limit-1].Raw)
	case cut && len(entries) > 0:
		page.Cursor = base64.RawURLEncoding.EncodeToString(entries[len(entries)-1].Raw)
	}
	return page, nil
}

// listRange is the byte range [lo, hi) a listing reads: its bounds,
// narrowed by its Cursor to the keys past the one it names.
func listRange(opts ListOptions) (lo, hi []byte, err error) {
	lo, hi, err = bounds(opts)
	if err != nil || opts.Cursor == "" {
		return lo, hi, err
	}
	after, err := base64.RawURLEncoding.DecodeString(opts.Cursor)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: malformed cursor %q", ErrInvalidArgument, opts.Cursor)
	}
	if opts.Reverse {
		return lo, after, nil
	}
	return append(after, 0x00), hi, nil // the smallest key greater than after
}

// listWhere is the condition of a listing over [lo, hi) with the filters
// opts asks for, and its arguments; order is its key order, ASC or DESC.
func (s *Store) listWhere(opts ListOptions, lo, hi []byte) (where string, args []any, order string) {
	rng, args := rangeWhere(lo, hi)
	conds := []string{rng}
	if filter, fargs := s.listFilter(opts); filter != "" {
		conds = append(conds, filter)
		args = append(args, fargs...)
	}
	order = "ASC"
	if opts.Reverse {
		order = "DESC"
	}
	return strings.Join(conds, " AND "), args, order
}

// listFilter is the condition a listing's rows must meet besides their
// range ("" when none: every row of the range is listed), and its
// arguments.
func (s *Store) listFilter(opts ListOptions) (cond string, args []any) {
	var conds []string
	if !opts.IncludeExpired {
		conds = append(conds, liveSQL)
		args = append(args, s.Now())
	}
	if opts.expiredAt != 0 {
		conds = append(conds, "expires_at IS NOT NULL AND expires_at <= ?")
		args = append(args, opts.expiredAt)
	}
	if len(opts.ValueContains) > 0 {
		// Both sides as blobs: instr then compares bytes, whatever the
		// value's type and encoding (a row another program wrote).
		conds = append(conds, "instr(CAST(v AS BLOB), ?) > 0")
		args = append(args, opts.ValueContains)
	}
	return strings.Join(conds, " AND "), args
}

// listQuery is List's statement over [lo, hi) and its arguments: the
// filters opts asks for, limit+1 rows in key order (one more than asked
// tells whether another page follows), and, with a budget, only the rows
// that start before it.
func (s *Store) listQuery(opts ListOptions, lo, hi []byte, limit int) (string, []any) {
	where, args, order := s.listWhere(opts, lo, hi)
	// One row more than asked tells whether another page follows, so the
	// last page never costs an extra, empty read.
	args = append(args, limit+1)
	q := "SELECT " + s.entrySQL() + " FROM kv WHERE " + where + " ORDER BY k " + order + " LIMIT ?"
	if opts.budget > 0 {
		// The running size of the rows before each one, in the same
		// statement: the page stops at the first row that starts past the
		// budget. entryCostSQL over-estimates a row in a Hrana answer
		// (JSON, base64 keys and values), so a page stays under the
		// server's response limit.
		q = "SELECT k, v, ver, expires_at, run + c FROM (SELECT k, v, ver, expires_at, c, " +
			"sum(c) OVER (ORDER BY k " + order + " ROWS UNBOUNDED PRECEDING) - c AS run FROM (" +
			"SELECT " + s.entrySQL() + ", " + entryCostSQL + " AS c FROM kv WHERE " + where +
			" ORDER BY k " + order + " LIMIT ?)) WHERE run < ? ORDER BY k " + order
		args = append(args, opts.budget)
	}
	return q, args
}

// entryCostSQL estimates the bytes a row read with entrySQL takes in a
// Hrana answer: each cell's JSON wrapper, a base64 key, and the value,
// which travels as a BLOB over a server: base64, 4 bytes for 3 (length of
// a BLOB is its size, read without scanning the value). A NULL k or v
// costs its wrapper only: a NULL cost would drop its row from a sized
// page. The change feed sizes its pages with it too.
const entryCostSQL = "(160 + 2 * coalesce(length(k), 0) + 2 * coalesce(length(CAST(v AS BLOB)), 0))"

// Remote pages are sized in bytes: sqld refuses an answer past its
// response limit (RESPONSE_TOO_LARGE, 10 MB by default), and each request
// costs a round trip, so a page is as large as stays well under the limit
// (entryCostSQL over-estimates an answer: at most 0.7 of it travels, and
// sqld counts half of it or less). A scan's page (scanremote.go) may be
// larger: it is sized from the rows of the page before, and read again
// cut when its rows grew past the limit.
const (
	remotePageRows        = 100000
	remotePageBytes int64 = 4 << 20
	scanPageBytes   int64 = 8 << 20
)

// Scan streams every entry of a listing to fn. opts.Limit caps the
// total; zero means no cap. fn may stop the scan by returning an error
// (that error is Scan's). It reads page by page, no transaction open
// between pages: on a file pages of DefaultPageSize rows; over a server
// keyset pages sized in bytes, the next read while fn handles this one
// (scanremote.go).
func (s *Store) Scan(ctx context.Context, opts ListOptions, fn func(Entry) error) error {
	return s.scanPages(ctx, opts, fn)
}

// scanPages is Scan page by page: over a server each page is a request,
// and the next is read while fn handles this one.
func (s *Store) scanPages(ctx context.Context, opts ListOptions, fn func(Entry) error) error {
	total := opts.Limit
	t := s.conn.traits()
	read := s.pageReader(opts)
	// Over a remote transport the next page is read while fn handles this
	// one, so that the round trip and the server's work overlap the
	// caller's (a dump formatting JSON). A file reads one page at a time.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		p   Page
		err error
	}
	var ahead chan answer
	defer func() {
		if ahead != nil {
			cancel()
			<-ahead // no read outlives Scan
		}
	}()
	seen := 0
	p, err := read(ctx, 0, opts.Cursor, nil)
	for {
		if err != nil {
			return err
		}
		seen += len(p.Entries)
		more := p.Cursor != "" && (total <= 0 || seen < total)
		if more && t.scanAhead {
			ahead = make(chan answer, 1)
			go func(seen int, cursor string, last []Entry, ch chan<- answer) {
				p, err := read(ctx, seen, cursor, last)
				ch <- answer{p, err}
			}(seen, p.Cursor, p.Entries, ahead)
		}
		for _, e := range p.Entries {
			if err := fn(e); err != nil {
				return err
			}
		}
		switch {
		case !more:
			return nil
		case ahead != nil:
			a := <-ahead
			ahead, p, err = nil, a.p, a.err
		default:
			p, err = read(ctx, seen, p.Cursor, p.Entries)
		}
	}
}

// pageReader reads the page of a Scan of opts after seen entries, from
// cursor (last: the page before): on a file a List of DefaultPageSize
// rows, over a server a keyset page sized in bytes (scanremote.go); no
// larger than what is left of opts.Limit.
func (s *Store) pageReader(opts ListOptions) func(ctx context.Context, seen int, cursor string, last []Entry) (Page, error) {
	left := func(seen int) int {
		if opts.Limit > 0 {
			return opts.Limit - seen
		}
		return 0
	}
	if s.conn.traits().sized {
		pager := &remotePager{s: s, opts: opts}
		return func(ctx context.Context, seen int, cursor string, last []Entry) (Page, error) {
			return pager.next(ctx, cursor, left(seen), last)
		}
	}
	return func(ctx context.Context, seen int, cursor string, _ []Entry) (Page, error) {
		page := opts
		page.Cursor, page.Limit = cursor, DefaultPageSize
		if n := left(seen); n > 0 && n < page.Limit {
			page.Limit = n
		}
		return s.List(ctx, page)
	}
}

// Dump streams every physical row with a key under prefix (all of them
// for a nil or empty prefix), expired and undecodable ones included, in
// key order. It leaves out the rows whose key is NULL, as every key range
// does (no comparison is true of NULL), and as a sweep does: DumpAll
// lists them too.
func (s *Store) Dump(ctx context.Context, prefix codec.Key, fn func(Entry) error) error {
	return s.Scan(ctx, ListOptions{Prefix: prefix, IncludeExpired: true, Unbounded: len(prefix) == 0}, fn)
}

// DumpAll is Dump that, with no prefix, streams first the rows whose key
// is NULL (Entry.KeyNull; no prefix holds them), in the order they were
// inserted (rowid), as SQLite orders them before every key: every
// physical row of the store, what kvdeck dump writes.
func (s *Store) DumpAll(ctx context.Context, prefix codec.Key, fn func(Entry) error) error {
	if len(prefix) == 0 {
		if err := s.dumpKeyless(ctx, fn); err != nil {
			return err
		}
	}
	return s.Dump(ctx, prefix, fn)
}

// keylessPage is how many NULL-key rows one statement reads at most.
const keylessPage = DefaultPageSize

// dumpKeyless streams the rows whose k is NULL, in pages ordered by rowid
// (NULL keys are not unique, so no key can continue a listing of them);
// over a server a page also ends where its estimated answer size passes
// remotePageBytes. A kv without rowid cannot hold a NULL primary key:
// there is nothing to read.
func (s *Store) dumpKeyless(ctx context.Context, fn func(Entry) error) error {
	var after any = -1e19 // below every rowid, -2^63 included
	first, pageRows := true, or(s.knobs.keylessPage, keylessPage)
	sized := s.conn.traits().sized
	for {
		q, args := s.keylessSQL(after, pageRows, sized)
		rows, err := s.query(ctx, q, args...)
		if err != nil {
			if first && strings.Contains(err.Error(), "no such column: rowid") {
				return nil
			}
			return err
		}
		first = false
		var page []Entry
		var rowids []int64
		var read int64 // over a server, the rows before the cut
		for rows.Next() {
			var rowid int64
			extra := []any{&rowid}
			if sized {
				extra = append(extra, &read)
			}
			e, err := scanEntry(rows, extra...)
			if err != nil {
				rows.Close()
				return s.classify(err)
			}
			page, rowids = append(page, e), append(rowids, rowid)
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return s.classify(err)
		}
		rows.Close()
		s.rowsRead.Add(int64(len(page)))
		more := len(page) > pageRows || int64(len(page)) < read
		if len(page) > pageRows {
			page = page[:pageRows]
		}
		for _, e := range page {
			if err := fn(e); err != nil {
				return err
			}
		}
		if !more {
			return nil
		}
		after = rowids[len(page)-1]
	}
}

// keylessSQL is the statement of a page of NULL-key rows after rowid
// after: one row more than pageRows (more follow), and over a server
// (sized) cut where its estimated answer passes remotePageBytes, each
// row with n, the rows before the cut (it cut the page when more).
func (s *Store) keylessSQL(after any, pageRows int, sized bool) (string, []any) {
	if !sized {
		return "SELECT " + s.entrySQL() + ", rowid FROM kv WHERE k IS NULL AND rowid > ? ORDER BY rowid LIMIT ?", []any{after, pageRows + 1}
	}
	_, budget := s.remotePage()
	return "SELECT k, v, ver, expires_at, r, n FROM (SELECT k, v, ver, expires_at, r, count(*) OVER () AS n, " +
			"sum(c) OVER (ORDER BY r ROWS UNBOUNDED PRECEDING) - c AS run FROM (" +
			"SELECT " + s.entrySQL() + ", rowid AS r, " + entryCostSQL + " AS c FROM kv WHERE k IS NULL AND rowid > ? ORDER BY rowid LIMIT ?)) " +
			"WHERE run < ? ORDER BY r", // the first row always: its run is 0
		[]any{after, pageRows + 1, budget}
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
	out, _, err := s.collectSized(ctx, q, args, false)
	return out, err
}

// collectSized is collect for a statement with a fifth column when sized
// is true: the running size, of which it returns the last row's.
func (s *Store) collectSized(ctx context.Context, q string, args []any, sized bool) ([]Entry, int64, error) {
	return s.collectInto(ctx, nil, q, args, sized)
}

// collectInto is collectSized appending to out (a page's room).
func (s *Store) collectInto(ctx context.Context, out []Entry, q string, args []any, sized bool) ([]Entry, int64, error) {
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var end int64
	var sc *entryScanner
	if sized {
		sc = newEntryScanner(&end)
	} else {
		sc = newEntryScanner()
	}
	for rows.Next() {
		e, err := sc.scan(rows)
		if err != nil {
			return nil, 0, s.classify(err)
		}
		out = append(out, e)
	}
	s.rowsRead.Add(int64(len(out)))
	return out, end, s.classify(rows.Err())
}

// scanEntry scans the current row of a (k, v, ver, expires_at, extra...)
// statement, a read's or a write's (resultRows), with the readers of odd
// columns (verCol, expiryCol): v as stored, TEXT or BLOB.
func scanEntry(rows interface{ Scan(dest ...any) error }, extra ...any) (Entry, error) {
	return newEntryScanner(extra...).scan(rows)
}

// entryScanner is scanEntry for many rows: its destinations are made
// once and reused, row after row (each Scan leaves them nothing of the
// row before).
type entryScanner struct {
	k, v bytesCol
	ver  verCol
	exp  expiryCol
	dest []any
}

func newEntryScanner(extra ...any) *entryScanner {
	sc := &entryScanner{}
	sc.dest = append([]any{&sc.k, &sc.v, &sc.ver, &sc.exp}, extra...)
	return sc
}

// scan reads the current row of rows.
func (sc *entryScanner) scan(rows interface{ Scan(dest ...any) error }) (Entry, error) {
	if err := rows.Scan(sc.dest...); err != nil {
		return Entry{}, err
	}
	return newEntryCols(sc.k, sc.v, sc.ver, sc.exp), nil
}

// entrySQL is the select list of every entry read: k, v, ver, expires_at,
// with v as valueSQL gives it.
func (s *Store) entrySQL() string {
	return "k, " + s.valueSQL() + " AS v, " + s.intSQL("ver") + ", " + s.intSQL("expires_at")
}

// valueSQL selects the v column so that any server can answer it. A TEXT
// value is any bytes to SQLite, and another program may have stored bytes
// that are not UTF-8 there: a file hands them over as they are, but sqld
// must put a TEXT cell in a JSON string and fails the whole statement
// ("invalid utf-8 sequence"), so one such row broke every read of its
// range. Over a server a TEXT v therefore travels as a BLOB of the same
// bytes (base64 in the answer; scanEntry reads TEXT and BLOB alike); other
// types (a number, NULL, a BLOB) travel as they are.
func (s *Store) valueSQL() string {
	if s.conn.traits().textTagged {
		return "CASE WHEN typeof(v) = 'text' THEN CAST(v AS BLOB) ELSE v END"
	}
	return "v"
}

// DumpPrefixes streams every physical row under any of prefixes (expired
// and undecodable ones included) in key order, in pages that read all the
// prefixes at once: one request per page however many prefixes there are
// (a doctor reads the few coordination prefixes of a large store so).
func (s *Store) DumpPrefixes(ctx context.Context, prefixes []codec.Key, fn func(Entry) error) error {
	if len(prefixes) == 0 {
		return nil
	}
	var rs []prefixRange
	for _, p := range prefixes {
		lo, hi, err := bounds(ListOptions{Prefix: p, Unbounded: len(p) == 0})
		if err != nil {
			return err
		}
		rs = append(rs, prefixRange{lo, hi})
	}
	limit, budget := DefaultPageSize, int64(0)
	if s.conn.traits().sized {
		limit, budget = s.remotePage()
	}
	var after []byte
	for {
		q, args := s.prefixesPage(rs, after, limit, budget)
		if q == "" {
			return nil
		}
		entries, end, err := s.collectSized(ctx, q, args, budget > 0)
		if err != nil {
			return err
		}
		more := len(entries) > limit || (budget > 0 && end >= budget)
		if len(entries) > limit {
			entries = entries[:limit]
		}
		for _, e := range entries {
			if err := fn(e); err != nil {
				return err
			}
		}
		if !more || len(entries) == 0 {
			return nil
		}
		after = entries[len(entries)-1].Raw
	}
}

// prefixRange is the keys of one prefix of DumpPrefixes: [lo, hi).
type prefixRange struct{ lo, hi []byte }

// prefixesPage is DumpPrefixes' statement for the page after key after
// (nil: the first): each range is its own bounded index scan; the union
// is merged in key order and cut like a List page (limit+1 rows, and
// with a budget only the rows that start before it). It returns "" when
// every range is done.
func (s *Store) prefixesPage(rs []prefixRange, after []byte, limit int, budget int64) (string, []any) {
	var parts []string
	var args []any
	for _, r := range rs {
		lo := r.lo
		if after != nil && bytes.Compare(after, lo) >= 0 {
			lo = append(append([]byte{}, after...), 0x00)
		}
		if r.hi != nil && bytes.Compare(lo, r.hi) >= 0 {
			continue
		}
		w, a := rangeWhere(lo, r.hi)
		parts = append(parts, "SELECT * FROM (SELECT "+s.entrySQL()+" FROM kv WHERE "+w+" ORDER BY k LIMIT ?)")
		args = append(append(args, a...), limit+1)
	}
	if len(parts) == 0 {
		return "", nil
	}
	union := strings.Join(parts, " UNION ALL ")
	q := "SELECT k, v, ver, expires_at FROM (" + union + ") ORDER BY k LIMIT ?"
	args = append(args, limit+1)
	if budget > 0 {
		q = "SELECT k, v, ver, expires_at, run + c FROM (SELECT k, v, ver, expires_at, c, " +
			"sum(c) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING) - c AS run FROM (" +
			"SELECT k, v, ver, expires_at, " + entryCostSQL + " AS c FROM (" + union + ") ORDER BY k LIMIT ?)) WHERE run < ? ORDER BY k"
		args = append(args, budget)
	}
	return q, args
}
