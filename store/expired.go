package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Finding expired rows by SQL. A sweep, its dry run and the Sweep tab's
// preview read only what a sweep would delete: each statement examines a
// window of rows and hands back the ones expired at the sweep's cut (their
// keys for a sweep's deletes, whole rows for a listing, none for a count)
// and one summary row of the window (the rows expired at the cut, those
// expired at the sweep's now but live by the real clock, the earliest
// expiry after now, the rows examined, kv_meta's seq, where the next
// window starts). No live row travels.
//
// A window of the whole store is a range of rowids: the table read in its
// own order, page after page, as a plain aggregate reads it (in key order
// every row is a seek into the table: 3-7 times the work on a store whose
// keys were not written in key order, measured on 1M rows). A window of a
// key range (a prefix, or a kv without rowid) is the next rows of the
// range in key order, its end found by an index-only OFFSET. Either holds
// at most its window of rows. Whole-store windows keep to the rows a
// sweep reaches: those whose k is a BLOB (k >= x''), the rows every key
// range holds.
//
// On a file a window is read as readWindowed reads (without SQLite's
// locks on a rollback-journal file, shorter beside a writer); over a
// server a count examines remoteCountWindow rows per request (its answer
// is one row), a sweep's read remoteSweepWindow (its answer holds the
// window's expired keys, well under sqld's 10 MB).

// expiredMode is what a window's statement hands back besides its summary.
type expiredMode int

const (
	// expiredCount: nothing (the summary counts the expired rows).
	expiredCount expiredMode = iota
	// expiredKeys: the expired rows' keys (a sweep's deletes).
	expiredKeys
	// expiredRows: the expired rows (a listing).
	expiredRows
)

// fileExpiredWindow is the rows one statement of an expired scan examines
// on a file (halved beside a writer: readWindowed).
const fileExpiredWindow = 5000

// maxSortedBytes bounds what a listing of the whole store holds before it
// hands the rows over in key order (windows of rowids find them in the
// table's order): past it, the listing starts again in key order (key
// windows, nothing held).
const maxSortedBytes = 32 << 20

// expiredWindow is what one statement found.
type expiredWindow struct {
	// keys (expiredKeys) or rows (expiredRows) expired at the clock's
	// cut: keys in key order, rows too in a key window.
	keys [][]byte
	rows []expiredRow
	// expired counts the rows expired at the cut; liveByReal those
	// expired at now but live at the real clock; next is the earliest
	// expiry after now.
	expired, liveByReal int64
	next                *int64
	// examined is how many rows the window holds; seq is kv_meta's seq as
	// the statement read it, or the highest stamp of a sweep's rows when
	// higher (a row written since has a higher ver); metaSeq is kv_meta's
	// seq alone.
	examined     int
	seq, metaSeq int64
	// odd counts a sweep's keys whose stamp is not a number (another
	// program's rows): no stamp tells whether they were written since.
	odd int64
}

// expiredRow is a row of a listing as read, decoded when handed over
// (a decoded key costs several times its bytes, and a listing of the
// whole store holds its rows until the end).
type expiredRow struct {
	k, v bytesCol
	ver  verCol
	exp  expiryCol
}

// entry decodes the row.
func (r expiredRow) entry() Entry { return newEntryCols(r.k, r.v, r.ver, r.exp) }

// size is about what the row costs held: its bytes and its fields.
func (r expiredRow) size() int { return len(r.k.b) + len(r.v.b) + 160 }

// byKey orders rows by raw key.
func byKey(a, b expiredRow) int { return bytes.Compare(a.k.b, b.k.b) }

// expiredScan walks a range window by window.
type expiredScan struct {
	s      *Store
	lo, hi []byte
	clock  sweepClock
	mode   expiredMode
	// byRowid: windows of rowids (the whole store); else of keys.
	byRowid bool
	// packed: a journaled sweep's windows come packed (expired_packed.go).
	packed bool
	// rowid and key are where the next window starts; done when the
	// range is walked.
	rowid int64
	key   []byte
	done  bool
	win   *readWindow
	// claimed: a lane of a listing (expired_lanes.go), whose windows of
	// rowids start at rowid itself and end by claimEnd.
	claimed  bool
	claimEnd int64
	// first, when not zero, has a listing's window hand over only its
	// first rows in key order, that many of them, below the key below
	// (nil: any): the rows a listing of the first rows may keep.
	first int
	below []byte
	// rows are a listing's rows: each window's are appended (a listing of
	// the whole store gathers them here, unmoved until ordered), their
	// keys and values in arena.
	rows  []expiredRow
	arena byteArena
}

// newExpiredScan starts a walk of [lo, hi) (hi nil: unbounded) for the
// rows expired at c.
func (s *Store) newExpiredScan(lo, hi []byte, c sweepClock, mode expiredMode) *expiredScan {
	x := &expiredScan{s: s, lo: lo, hi: hi, clock: c, mode: mode, key: lo, rowid: math.MinInt64,
		byRowid: len(lo) == 0 && hi == nil}
	t := s.conn.traits()
	kind, n := windowExpired, t.expiredSweep
	if mode == expiredCount {
		kind, n = windowCount, t.expiredCount
	}
	x.win = s.newReadWindow(kind, or(s.knobs.expiredWindow, n))
	return x
}

// inKeyOrder walks the same range in key windows from its start, holding
// no row.
func (x *expiredScan) inKeyOrder() *expiredScan {
	y := *x
	y.byRowid, y.key, y.done, y.rows = false, x.lo, false, nil
	return &y
}

// next reads the next window and moves past it.
func (x *expiredScan) next(ctx context.Context) (expiredWindow, error) {
	w, sum, err := x.readWindow(ctx)
	if err == nil && x.packed && w.odd != 0 {
		// Rows that do not pack: this window row by row, and every window
		// after it when none can (odd < 0).
		again := w.odd > 0
		x.packed = false
		w, sum, err = x.readWindow(ctx)
		x.packed = again
	}
	if x.byRowid && !x.claimed && noRowid(err) {
		// A kv made WITHOUT ROWID (not the reference's schema): key windows.
		*x = *x.inKeyOrder()
		return x.next(ctx)
	}
	if err != nil {
		return w, err
	}
	switch {
	case x.byRowid && sum.nrowid != nil:
		x.rowid = *sum.nrowid
	case !x.byRowid && sum.nkey != nil:
		x.key = sum.nkey
	default:
		x.done = true
	}
	slices.SortFunc(w.keys, bytes.Compare)
	if !x.byRowid { // a key window's rows in key order; listExpired orders a rowid scan's at its end
		slices.SortFunc(w.rows, byKey)
	}
	x.s.rowsRead.Add(int64(len(w.keys) + len(w.rows) + 1))
	return w, nil
}

// noRowid reports whether err is that of a table without rowid.
func noRowid(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no such column: rowid")
}

// readWindow reads the window at the scan's position, its rows appended
// to x.rows (and in w.rows).
func (x *expiredScan) readWindow(ctx context.Context) (expiredWindow, windowSummary, error) {
	var w expiredWindow
	var sum windowSummary
	base := len(x.rows)
	err := x.s.readWindowed(ctx, x.win, x.sql, func(rows resultRows) error {
		w, sum, x.rows = expiredWindow{}, windowSummary{}, x.rows[:base]
		return x.read(rows, &w, &sum)
	})
	w.rows = x.rows[base:]
	return w, sum, err
}

// windowSummary is where a window says the next one starts: a rowid or
// a key, nil at the range's end.
type windowSummary struct {
	nrowid *int64
	nkey   []byte
}

// read reads one statement's answer into w: a count's or a sweep's one
// row (the window's summary and a sweep's keys), or a listing's rows
// (readRows).
func (x *expiredScan) read(rows resultRows, w *expiredWindow, sum *windowSummary) error {
	switch {
	case x.packed:
		return x.readPacked(rows, w, sum)
	case x.mode == expiredRows:
		return x.readRows(rows, w, sum)
	}
	var summary, keys sql.NullString
	for rows.Next() {
		if err := rows.Scan(&summary, &keys); err != nil {
			return x.s.classify(err)
		}
		if err := w.summary(summary.String, sum); err != nil {
			return err
		}
		for h := range strings.SplitSeq(keys.String, ",") {
			if h == "" {
				continue
			}
			key, err := hex.DecodeString(h)
			if err != nil {
				return fmt.Errorf("expired keys: %q: %w", h, err)
			}
			w.keys = append(w.keys, key)
		}
	}
	if x.mode == expiredKeys {
		w.expired = int64(len(w.keys))
	}
	return x.s.classify(rows.Err())
}

// readRows reads a listing's answer: its rows, appended to x.rows, then
// the summary, in v of a row whose k is NULL (a listed row's k is a BLOB:
// windows keep to BLOB keys or a key range).
func (x *expiredScan) readRows(rows resultRows, w *expiredWindow, sum *windowSummary) error {
	base := len(x.rows)
	// One set of destinations for every row (each Scan sets them whole);
	// k and v are copied into the scan's arena, not a slice each.
	k, v := arenaCol{a: &x.arena}, arenaCol{a: &x.arena}
	var ver verCol
	var exp expiryCol
	for rows.Next() {
		if err := rows.Scan(&k, &v, &ver, &exp); err != nil {
			return x.s.classify(err)
		}
		if !k.c.null {
			x.rows = append(x.rows, expiredRow{k: k.c, v: v.c, ver: ver, exp: exp})
			continue
		}
		if err := w.summary(string(v.c.b), sum); err != nil {
			return err
		}
	}
	w.expired = int64(len(x.rows) - base)
	return x.s.classify(rows.Err())
}

// The positions in a window's summary (sql, summary).
const (
	sumRowid = iota
	sumKey
	sumSeq
	sumExamined
	sumExpired
	sumLive
	sumNext
	sumMaxVer
	sumOdd
	sumLen
)

// summary reads a window's summary, a JSON array (sql).
func (w *expiredWindow) summary(text string, sum *windowSummary) error {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var a []any
	if err := dec.Decode(&a); err != nil || len(a) != sumLen {
		return fmt.Errorf("expired rows: unexpected summary %q: %w", text, err)
	}
	n := func(i int) int64 {
		v, _ := a[i].(json.Number)
		n, _ := v.Int64()
		return n
	}
	if a[sumRowid] != nil {
		r := n(sumRowid)
		sum.nrowid = &r
	}
	sum.nkey = jsonHex(a[sumKey])
	w.seq, w.examined, w.expired, w.liveByReal = n(sumSeq), int(n(sumExamined)), n(sumExpired), n(sumLive)
	w.metaSeq = w.seq
	w.next, w.odd = jsonExpiry(a[sumNext]), n(sumOdd)
	// Rows the read found already stamped above seq (another program's,
	// kv_meta behind them) were not written since: the deletes take them
	// too (a stamp as its ceiling, as the census reads one).
	if at := jsonExpiry(a[sumMaxVer]); at != nil {
		w.seq = max(w.seq, *at)
	}
	return nil
}

// sql is the statement of a window of n rows from the scan's position.
// Parameters: ?1 the cut, ?2 now, ?3 the real clock, ?4 where the window
// starts (a rowid or a key), ?5 n, ?6 the range's end (a bounded key
// range only), then, for a listing of its first rows, the key they are
// below (NULL: any) and how many. A count's and a sweep's answer is one
// row: the window's summary and a sweep's keys. A listing's is its rows
// (k, v, ver, expires_at), then the summary in v of a row whose k is NULL:
// no column of every row is there only for the last one (each costs the
// driver a value per row). The summary is a JSON array: the next window's first rowid,
// or first key as keyHex writes it; seq; the rows examined; when
// counting, the rows expired at the cut; those expired at now but live at
// the real clock; the earliest expiry after now; for a sweep, the highest
// stamp of its rows and how many of them have a stamp that is not a
// number. The keys are their hex, comma-separated. A count and
// a sweep's read are one aggregate: one pass over the window, one value
// to hand over (a row handed over costs several times what examining it
// does).
func (x *expiredScan) sql(n int) (string, []any) {
	if x.packed {
		return x.packedSQL(n)
	}
	args, with, where, nrowid, nkey := x.window(n)
	// Every bound parameter appears (libsql-client-go refuses one left
	// unused): a figure not asked for names its parameter in a constant.
	expired, keys, maxVer, odd := "0 * ?1", "NULL", "NULL", "0"
	switch x.mode {
	case expiredCount:
		expired = "count(*) FILTER (WHERE expires_at <= ?1)"
	case expiredKeys:
		keys = "group_concat(hex(k), ',') FILTER (WHERE expires_at <= ?1)"
		maxVer = "max(ver) FILTER (WHERE expires_at <= ?1 AND ver < '')" // a number: TEXT and BLOB sort above
		odd = "count(*) FILTER (WHERE expires_at <= ?1 AND typeof(ver) NOT IN ('integer', 'real'))"
	case expiredRows: // the rows travel, counted as read
	}
	figures := x.figuresSQL(nrowid, nkey, expired, maxVer, odd)
	if x.mode != expiredRows {
		return with + "SELECT " + figures + ", " + keys + " FROM kv WHERE " + where, args
	}
	listed := "expires_at <= ?1"
	var order string
	if x.first > 0 {
		// Only the first rows in key order, below the listing's bound:
		// the window's others cannot be among the rows it hands over.
		args = append(args, x.below, x.first)
		below, first := fmt.Sprintf("?%d", len(args)-1), fmt.Sprintf("?%d", len(args))
		listed += " AND (" + below + " IS NULL OR k < " + below + ")"
		order = " ORDER BY k LIMIT " + first
	}
	if !x.byRowid {
		// A key window: its rows, then its summary (two passes).
		return with + "SELECT * FROM (SELECT " + x.s.entrySQL() + " FROM kv WHERE " + where + " AND " + listed + order + ")" +
			" UNION ALL SELECT NULL, " + figures + ", NULL, NULL FROM kv WHERE " + where, args
	}
	// A window of rowids: the summary's pass also gathers the listed rows'
	// rowids, and the rows are read by them, a seek each (a preview's few
	// below its bound, without sorting the window's expired rows: half
	// the time of a second pass on 1M rows). The rowids are a JSONB array,
	// which json_each walks without parsing text.
	return with + ", a(f, ids) AS MATERIALIZED (SELECT " + figures + ", jsonb_group_array(rowid) FILTER (WHERE " + listed + ") FROM kv WHERE " + where + ") " +
		"SELECT * FROM (SELECT " + x.s.entrySQL() + " FROM json_each((SELECT ids FROM a)) AS j, kv WHERE kv.rowid = j.value" + order + ")" +
		" UNION ALL SELECT NULL, f, NULL, NULL FROM a", args
}

// figuresSQL is a window's summary, the JSON array sql describes, with
// the expired count, the highest stamp and the odd count given (the
// rows live by the real clock counted only when the clock is virtual).
func (x *expiredScan) figuresSQL(nrowid, nkey, expired, maxVer, odd string) string {
	live := "0 * ?3"
	if x.clock.real < x.clock.now {
		live = "count(*) FILTER (WHERE expires_at > ?3 AND expires_at <= ?2)"
	}
	return "json_array(" + nrowid + ", " + nkey + ", (SELECT seq FROM kv_meta WHERE id = 0), count(*), " +
		expired + ", " + live + ", " + noBlob("min(expires_at) FILTER (WHERE expires_at > ?2)") + ", " + maxVer + ", " + odd + ")"
}

// window is the bounds of a window of n rows in SQL, with the arguments
// of the statement so far (?1 the cut, ?2 now, ?3 the real clock, ?4 the
// window's start, ?5 n, ?6 the range's end): its WITH and WHERE, and
// the next window's first rowid and key as the summary gives them.
func (x *expiredScan) window(n int) (args []any, with, where, nrowid, nkey string) {
	args = []any{x.clock.cut, x.clock.now, x.clock.real, nil, n}
	if x.byRowid {
		args[3] = x.rowid
		// Over a server a window takes the table's last rows too when
		// they are fewer than a quarter of a window: a request for a
		// store's last few rows (a million and a few) is a round trip
		// for nothing. A file's windows keep their size (lock-free reads).
		end := "s + ?5 - 1"
		if !x.s.conn.traits().ownsFiles {
			end = "CASE WHEN m < s + ?5 + ?5 / 4 THEN m ELSE s + ?5 - 1 END"
		}
		with = "WITH b(lo, hi) AS MATERIALIZED (SELECT s, " + end + " FROM (SELECT min(rowid) AS s FROM kv WHERE rowid >= ?4), (SELECT max(rowid) AS m FROM kv)) "
		if x.claimed {
			// A lane's window: its rowids, n of them at most, within its
			// claim (?6, its end, found without overflow).
			end := x.claimEnd
			if x.rowid <= x.claimEnd-int64(n)+1 {
				end = x.rowid + int64(n) - 1
			}
			args = append(args, end)
			with = "WITH b(lo, hi) AS MATERIALIZED (SELECT ?4, ?6 + 0 * ?5) "
		}
		where = "rowid BETWEEN (SELECT lo FROM b) AND (SELECT hi FROM b) AND k >= x''"
		return args, with, where, "(SELECT min(rowid) FROM kv WHERE rowid > (SELECT hi FROM b))", "NULL"
	}
	args[3] = keyArg(x.key)
	upper, end := "1", "CAST((SELECT max(k) FROM kv) || x'00' AS BLOB)"
	if x.hi != nil {
		upper, end = "k < ?6", "?6"
		args = append(args, x.hi)
	}
	with = "WITH w(x) AS MATERIALIZED (SELECT (SELECT k FROM kv WHERE k >= ?4 AND " + upper + " ORDER BY k LIMIT 1 OFFSET ?5)) "
	where = "k >= ?4 AND k < coalesce((SELECT x FROM w), " + end + ")"
	return args, with, where, "NULL", keyHex("(SELECT x FROM w)")
}

// expiredTotals are the summaries of an expired scan's windows, added up.
type expiredTotals struct {
	expired, liveByReal int64
	next                *int64
}

// add adds a window's summary.
func (t *expiredTotals) add(w expiredWindow) {
	t.expired += w.expired
	t.liveByReal += w.liveByReal
	t.next = earliest(t.next, w.next)
}

// countExpired counts the rows in [lo, hi) expired at c.cut and those
// expired at c.now but live at c.real, and finds the earliest expiry
// after c.now, one aggregate statement per window.
func (s *Store) countExpired(ctx context.Context, lo, hi []byte, c sweepClock) (expiredTotals, error) {
	var t expiredTotals
	for x := s.newExpiredScan(lo, hi, c, expiredCount); !x.done; {
		w, err := x.next(ctx)
		if err != nil {
			return t, err
		}
		t.add(w)
	}
	return t, nil
}

// listExpired hands fn the rows in [lo, hi) expired at c.cut, in key
// order, at most limit of them (zero: all), and returns the scan's
// totals (over the whole range, unless limit or fn stopped it). A scan
// in key windows hands each window's rows over as it reads them; one in
// windows of rowids keeps the limit smallest keys (each window hands over
// only those below the largest kept; no limit: every row, up to
// maxSortedBytes, past which it walks the range again in key windows)
// and hands them over at its end.
func (s *Store) listExpired(ctx context.Context, lo, hi []byte, c sweepClock, limit int, fn func(Entry) error) (expiredTotals, error) {
	x := s.newExpiredScan(lo, hi, c, expiredRows)
	if limit == 0 && x.byRowid && s.twoLanes() {
		return s.listLanes(ctx, x, fn)
	}
	return s.listInOrder(ctx, x, limit, fn)
}

// listInOrder is listExpired as one reader walks x's windows.
func (s *Store) listInOrder(ctx context.Context, x *expiredScan, limit int, fn func(Entry) error) (expiredTotals, error) {
	var t expiredTotals
	heldBytes, sent := 0, 0
	// Without a limit, a scan in windows of rowids keeps each window's
	// rows apart (held), so that none is moved again as more come.
	var held [][]expiredRow
	for !x.done {
		x.first = max(limit-sent, 0)
		w, err := x.next(ctx)
		if err != nil {
			return t, err
		}
		t.add(w)
		if !x.byRowid {
			for _, r := range w.rows {
				if err := fn(r.entry()); err != nil {
					return t, err
				}
			}
			if sent += len(w.rows); limit > 0 && sent >= limit {
				return t, nil
			}
			x.rows = x.rows[:0]
			continue
		}
		for _, r := range w.rows {
			heldBytes += r.size()
		}
		switch {
		case limit > 0 && len(x.rows) >= limit:
			slices.SortFunc(x.rows, byKey) // at most twice limit rows
			x.rows = x.rows[:limit]
			x.below = x.rows[limit-1].k.b
		case limit == 0 && heldBytes > s.sortedBytes():
			t, x, held = expiredTotals{}, x.inKeyOrder(), nil
		case limit == 0 && len(x.rows) > 0:
			// The next window's rows in a slice of their own, sized as
			// this one's.
			held = append(held, x.rows)
			x.rows = make([]expiredRow, 0, len(x.rows)+len(x.rows)/4+16)
		}
	}
	for _, r := range inKeyOrder(append(held, x.rows)) {
		if err := fn(r.entry()); err != nil {
			return t, err
		}
	}
	return t, nil
}

// sortedBytes is maxSortedBytes, or the test knob's.
func (s *Store) sortedBytes() int { return or(s.knobs.sortedBytes, maxSortedBytes) }

// byteArena holds the bytes of many small columns in a few large chunks:
// a listing of the whole store holds its rows until the end, and a slice
// each is two allocations per row for the collector to track. A chunk is
// never reused: what was handed out stays valid, whoever keeps it.
type byteArena struct{ buf []byte }

// arenaChunk is the size of a chunk (a larger column gets its own).
const arenaChunk = 256 << 10

// arenaPut returns a copy of b in a (capped: an append to it copies).
func arenaPut[T string | []byte](a *byteArena, b T) []byte {
	if len(b) == 0 {
		return []byte{}
	}
	a.grow(len(b))
	n := len(a.buf)
	a.buf = append(a.buf, b...)
	return a.buf[n:len(a.buf):len(a.buf)]
}

// grow starts a new chunk when the current one has no room for n bytes.
func (a *byteArena) grow(n int) {
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]byte, 0, max(arenaChunk, n))
	}
}

// arenaCol is a bytesCol whose bytes are copied into an arena (the
// driver's are valid only until the next row).
type arenaCol struct {
	c bytesCol
	a *byteArena
}

// Scan implements sql.Scanner.
func (c *arenaCol) Scan(src any) error {
	switch x := src.(type) {
	case []byte:
		c.c = bytesCol{b: arenaPut(c.a, x)}
	case string:
		c.c = bytesCol{b: arenaPut(c.a, x)}
	default:
		return c.c.Scan(src)
	}
	return nil
}
