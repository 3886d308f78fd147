package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
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
//     statement on a file; ChangesWindowRemote over a server, so that
//     a store of up to a million rows is one request) and only rows that
//     match travel; on a rollback-journal file, where a locked read fails
//     a writer's commit, every statement goes without SQLite's locks,
//     validated (lockfree.go), and only when that keeps failing does it
//     walk at a pace (ChangesWindowPaced);
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

// A rollback-journal file without an index on ver, when its reads could
// not go without locks (lockfree.go: the file kept being written), is
// walked at a pace:
// ChangesPacedWindows windows of ChangesWindowPaced rows per call, the
// rest at the caller's next tick (ChangesPage.Walk). A reader there holds
// a shared lock for each statement, and a writer without a busy timeout
// (the reference's) fails when it commits meanwhile: the feed keeps each
// statement short and their sum small, at the price of a delay that
// grows with the table (a 100k-row table: 50 ticks). An index on ver
// (`kvdeck index add`) makes a page one short indexed read instead.
const (
	ChangesWindowPaced  = 2000
	ChangesPacedWindows = 1
)

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
	// Mark is ChangesPage.Mark of the reader's last page: on a file, a
	// page whose seq has not moved reads nothing past its head, recheck
	// included, while no commit happened since (zero: recheck as usual).
	Mark int64
	// Walk resumes a paced walk of the table (ChangesPage.Walk), with the
	// same After, AfterKey and prefixes.
	Walk *ChangesWalk
}

// ChangesPage is one page of the change feed.
type ChangesPage struct {
	// Entries are the rows stamped after the position, ascending by ver
	// and then key. A row rewritten several times since is here once, as
	// it is now. Rows whose ver is not a whole number (a foreign writer's)
	// carry no usable stamp and are never in the feed (OddStamps lists them).
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
	// row at each key, nil when the key is absent or expired. It is empty
	// when the page stopped at its head (nothing committed since Mark):
	// no answer, not absent rows.
	Rechecked []*Entry
	// Now is the clock reading the page judged liveness by (Rechecked,
	// and the expiry filter): a reader that took its own reading before
	// the call can tell a row that expired in between from a deleted one.
	Now int64
	// Mark is, on a file, the data_version of kvdeck's watch connection
	// at the read: it moves on every commit of another connection,
	// deletions included (0 over a server). Version.Rows is -1 on a file:
	// counting rows walks the table.
	Mark int64
	// Walk is not nil while a paced walk of the table is under way (a
	// rollback-journal file without an index on ver): the page holds no
	// entries yet; read again with ChangesOptions.Walk at the next tick.
	Walk *ChangesWalk
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
// the cost). On a file it first reads a head (seq, a commit mark, the
// journal mode, whether ver is indexed) in one short statement on
// kvdeck's watch connection, and stops there when nothing was committed
// since opts.Mark or seq has not moved past After; over a server the
// first statement carries seq and the row count and reads rows only when
// seq has moved past After. A store of up to ChangesWindowRemote rows
// costs one request; a larger one a request per window while kv has no
// index on ver. A rollback-journal file without an index is walked at a
// pace (ChangesPage.Walk).
func (s *Store) Changes(ctx context.Context, opts ChangesOptions) (ChangesPage, error) {
	q, err := s.newChangeQuery(opts)
	if err != nil {
		return ChangesPage{}, err
	}
	c := &changeScan{s: s, opts: opts, q: q, page: ChangesPage{Next: opts.After, NextKey: opts.AfterKey, Now: q.now}}
	c.walk = opts.Walk
	if c.walk != nil && !c.walk.matches(q) {
		c.walk = nil // another position or other prefixes: start afresh
	}
	t := s.conn.traits()
	remote := !t.head
	// onWatch: a file whose kv is known to have an index on ver reads
	// the page in one statement on the watch connection, its header
	// carrying the mark (one shared lock a page, not two).
	c.q.onWatch = t.head && c.walk == nil && !t.immutable && s.watch.verIndexed.Load() == indexYes && !s.conn.windowed()
	if !remote && !c.q.onWatch {
		if idle, err := c.fileHead(ctx); err != nil || idle {
			return c.page, err
		}
	}
	c.q.window = or(s.knobs.changesWindow, changesWindow(remote, c.paced))
	c.q.indexed = s.watch.verIndexed.Load() == indexYes
	c.q.mark = opts.Mark
	if c.walk != nil {
		w := c.walk
		c.found, c.sizes, c.cut, c.q.seq, c.q.start, c.page.Windows = w.found, w.sizes, w.cut, w.seq, w.next, w.windows
	}
	if done, err := c.run(ctx, remote); err != nil || done {
		return c.page, err
	}
	c.finish()
	return c.page, nil
}

// newChangeQuery is the first statement's query for opts.
func (s *Store) newChangeQuery(opts ChangesOptions) (changeQuery, error) {
	q := changeQuery{after: opts.After, afterKey: opts.AfterKey, limit: opts.Limit, budget: opts.MaxBytes, now: s.Now(), value: s.valueSQL()}
	if q.limit <= 0 {
		q.limit = DefaultPageSize
	}
	if q.budget <= 0 {
		_, q.budget = s.remotePage()
	}
	prefixes := opts.Prefixes
	if len(prefixes) == 0 {
		prefixes = []codec.Key{opts.Prefix}
	}
	for _, p := range prefixes {
		lo, hi, err := bounds(ListOptions{Prefix: p, Unbounded: len(p) == 0})
		if err != nil {
			return q, err
		}
		q.ranges = append(q.ranges, [2][]byte{lo, hi})
	}
	return q, nil
}

// changesWindow is how many rows a statement of a scan examines.
func changesWindow(remote, paced bool) int {
	switch {
	case paced:
		return ChangesWindowPaced
	case remote:
		return ChangesWindowRemote
	}
	return ChangesWindowFile
}

// changeScan is one call of Changes under way: its query, the rows its
// windows found, and the page it builds.
type changeScan struct {
	s     *Store
	opts  ChangesOptions
	q     changeQuery
	page  ChangesPage
	walk  *ChangesWalk
	paced bool
	found []Entry
	sizes []int64
	cut   bool
}

// fileHead reads the head of a page on a file (fileConn.head) and reports
// whether there is nothing to read past it.
func (c *changeScan) fileHead(ctx context.Context) (idle bool, err error) {
	s, opts := c.s, c.opts
	h, err := s.file.head(ctx)
	if err != nil {
		return false, err
	}
	c.page.Version, c.page.Mark = Version{Seq: h.seq, Rows: -1}, h.mark
	c.page.Statements++
	s.watch.verIndexed.Store(map[bool]int32{true: indexYes, false: indexNo}[h.indexed])
	if h.indexed {
		c.walk = nil // the index came: read through it
	}
	// Nothing to read: no row stamped past the position, and no recheck
	// asked or nothing committed since the reader's last page (a recheck
	// would answer what it answered then).
	idle = !pastPosition(h.seq, opts) && (len(opts.Recheck) == 0 || (opts.Mark != 0 && h.mark == opts.Mark))
	if c.walk == nil && idle {
		return true, nil
	}
	// On a rollback-journal file every statement's read lock fails a
	// writer without a busy timeout that commits meanwhile (WAL readers
	// block nobody; an immutable read takes no lock): its statements go
	// without locks (lockfree.go), or, when the head could not, at a pace.
	c.q.lockFree = h.lockFree
	imm := s.conn.traits().immutable
	c.paced = !h.wal && !h.indexed && !imm && !h.lockFree
	if h.lockFree {
		c.walk = nil // a walk begun with locks ends: read at full speed
	}
	// Indexed: the page on the same connection (its schema read).
	c.q.onWatch = h.indexed && c.walk == nil && !imm && !h.lockFree
	return false, nil
}

// run runs the statements of the scan, window after window. done is true
// when the page is complete without finish (the index went on the watch
// connection, or a paced walk stops for this call).
func (c *changeScan) run(ctx context.Context, remote bool) (done bool, err error) {
	windows := 0 // this call's
	first := true
	for {
		c.q.header, c.q.recheck, c.q.count = first, nil, first && remote
		if first {
			c.q.recheck = c.opts.Recheck
		}
		a, err := c.s.changeStatement(ctx, c.q)
		if err != nil {
			retry, err := c.withoutRowid(ctx, err)
			if retry {
				continue // the same statement, through the index
			}
			return false, err
		}
		c.page.Statements++
		if first {
			again, done := c.first(a, remote)
			if done {
				return true, nil
			}
			if again {
				continue
			}
		}
		first = false
		c.found = append(c.found, a.found...)
		c.sizes = append(c.sizes, a.sizes...)
		c.cut = c.cut || a.cut
		if !pastPosition(c.q.seq, c.opts) || c.q.indexed {
			return false, nil
		}
		c.page.Windows++
		windows++
		if a.nextLo == nil {
			return false, nil
		}
		c.q.start = a.nextLo
		if c.paced && windows >= ChangesPacedWindows {
			// Come back later for the rest (the caller's next tick).
			q := c.q
			c.page.Walk = &ChangesWalk{after: q.after, afterKey: q.afterKey, ranges: q.ranges, seq: q.seq, next: q.start,
				found: c.found, sizes: c.sizes, cut: c.cut, windows: c.page.Windows}
			return true, nil
		}
	}
}

// withoutRowid handles a statement's error: on a WITHOUT ROWID kv (not
// the reference's) only an index on ver lets the feed read it, and retry
// is true when there is one.
func (c *changeScan) withoutRowid(ctx context.Context, err error) (retry bool, _ error) {
	if c.q.indexed || !strings.Contains(err.Error(), "no such column: rowid") {
		return false, err
	}
	var indexed bool
	if _, ierr := c.s.queryRow(ctx, "SELECT "+verIndexedSQL, nil, &indexed); ierr == nil && indexed {
		c.s.watch.verIndexed.Store(indexYes)
		c.q.indexed = true
		return true, nil
	}
	return false, fmt.Errorf("the change feed walks kv by rowid, and this kv is a WITHOUT ROWID table; `kvdeck index add` gives it an index on ver to read changes through: %w", err)
}

// first takes the header of the scan's first statement: again is true
// when the index on ver came or went (read again the way that suits it),
// done when the page ends here.
func (c *changeScan) first(a changeAnswer, remote bool) (again, done bool) {
	s, opts := c.s, c.opts
	if c.q.onWatch {
		c.page.Version, c.page.Mark = Version{Seq: a.seq, Rows: -1}, a.mark
		if a.mark == opts.Mark {
			a.recheck = nil // nothing committed since: not asked
		}
		if !a.indexed {
			// The index went: the next page reads the head and walks.
			s.watch.verIndexed.Store(indexNo)
			c.page.Rechecked = a.recheck
			return false, true
		}
	}
	s.watch.verIndexed.Store(map[bool]int32{true: indexYes, false: indexNo}[a.indexed])
	if a.indexed != c.q.indexed && pastPosition(a.seq, opts) {
		c.q.indexed = a.indexed
		c.found, c.sizes, c.cut, c.q.seq, c.q.start, c.walk = nil, nil, false, 0, nil, nil
		return true, false
	}
	if remote {
		c.page.Version = Version{Seq: a.seq, Rows: a.rows}
	}
	c.page.Indexed, c.page.Rechecked = a.indexed, a.recheck
	if c.walk == nil {
		c.q.seq = a.seq
	}
	return false, false
}

// finish makes the page of the rows found: each window answered its
// lowest rows by (ver, k) up to the limits; the lowest of their union up
// to the same limits are the page.
func (c *changeScan) finish() {
	found, sizes, q, page := c.found, c.sizes, c.q, &c.page
	order := make([]int, len(found))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return changeLess(found[order[i]], found[order[j]]) })
	cut := c.cut
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
}

// ChangesWalk is a paced walk of the table in progress (ChangesPage.Walk):
// the windows read so far and what they found, kept by the reader
// between its ticks.
type ChangesWalk struct {
	after    int64
	afterKey []byte
	ranges   [][2][]byte
	seq      int64  // rows stamped up to seq are looked for
	next     *int64 // the next window's first rowid
	found    []Entry
	sizes    []int64
	cut      bool
	windows  int
}

// Windows is how many windows of ChangesWindowPaced rows the walk has
// read so far.
func (w *ChangesWalk) Windows() int { return w.windows }

// Rowid is the first rowid the walk reads next: with the table's row
// count, how far it is.
func (w *ChangesWalk) Rowid() int64 { return *w.next }

// matches reports whether the walk looks for what q looks for.
func (w *ChangesWalk) matches(q changeQuery) bool {
	if w.after != q.after || !bytes.Equal(w.afterKey, q.afterKey) || (w.afterKey == nil) != (q.afterKey == nil) || len(w.ranges) != len(q.ranges) {
		return false
	}
	for i, r := range w.ranges {
		if !bytes.Equal(r[0], q.ranges[i][0]) || !bytes.Equal(r[1], q.ranges[i][1]) {
			return false
		}
	}
	return true
}

// fileHead is what a page of the feed on a file reads first.
type fileHead struct {
	seq, mark    int64
	wal, indexed bool
	lockFree     bool // read without locks (lockfree.go); so are the page's statements
}

// changesHeadSQL reads, in one statement that touches two pages, seq, the
// connection's data_version (it moves whenever another connection
// commits, deletes included), the journal mode and whether ver is
// indexed.
const changesHeadSQL = "SELECT seq, (SELECT data_version FROM pragma_data_version()), (SELECT journal_mode FROM pragma_journal_mode()), " +
	verIndexedSQL + " FROM kv_meta WHERE id = 0"

// head reads the head on kvdeck's watch connection (version.go),
// whose data_version is comparable from one page to the next. An
// immutable read takes no lock and its data_version never moves: its
// mark is 0 (never idle by mark).
func (f *fileConn) head(ctx context.Context) (fileHead, error) {
	s := f.s
	var h fileHead
	var mode string
	if f.imm != nil {
		found, err := s.queryRow(ctx, changesHeadSQL, nil, &h.seq, new(int64), &mode, &h.indexed)
		if err == nil && !found {
			err = fmt.Errorf("%w: kv_meta has no row 0", ErrNotStore)
		}
		h.wal = true
		return h, err
	}
	if f.lockFreeUsable() {
		var mode string
		mark, ok, err := s.readLockFree(ctx, func(ctx context.Context, conn lfConn) error {
			return conn.QueryRowContext(ctx, changesHeadSQL).Scan(&h.seq, new(int64), &mode, &h.indexed)
		})
		if errors.Is(err, sql.ErrNoRows) {
			return h, fmt.Errorf("%w: kv_meta has no row 0", ErrNotStore)
		}
		if ok {
			s.rowsRead.Add(1)
			h.mark, h.lockFree = mark, true
			return h, s.classify(err)
		}
	}
	f.lockedRead()
	w := &s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	conn, err := f.watchConn(ctx)
	if err != nil {
		return h, err
	}
	err = conn.QueryRowContext(ctx, changesHeadSQL).Scan(&h.seq, &h.mark, &mode, &h.indexed)
	if errors.Is(err, sql.ErrNoRows) {
		return h, fmt.Errorf("%w: kv_meta has no row 0", ErrNotStore)
	}
	if err != nil {
		f.dropWatch()
		return h, s.classify(err)
	}
	s.rowsRead.Add(1)
	s.noteJournal(mode)
	h.wal = strings.EqualFold(mode, "wal")
	return h, nil
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
	// onWatch runs the statement on the watch connection: its header
	// carries data_version (in expires_at), and the recheck answers only
	// when it differs from mark (something was committed since).
	onWatch bool
	mark    int64
	// lockFree runs the statement without locks (lockfree.go).
	lockFree bool
	// value selects v (Store.valueSQL): over a server a TEXT value that is
	// not UTF-8 travels as a BLOB, or it fails the whole page.
	value string
}

// changeAnswer is what one statement answered.
type changeAnswer struct {
	seq, rows int64
	mark      int64
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
	var with string
	where, args := q.filter()
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
		"SELECT k, " + q.value + " AS v, ver, expires_at, " + entryCostSQL + " AS c FROM kv WHERE " + strings.Join(where, " AND ") + " ORDER BY ver, k LIMIT ?)) WHERE run < ?)"}
	args = append(args, q.limit+1, q.budget)
	if q.header || !q.indexed {
		parts = append(parts, q.headerSQL())
	}
	if len(q.recheck) > 0 {
		r, rargs := recheckSQL(q.recheck, q.now, q.value)
		if q.onWatch {
			r += " AND (SELECT data_version FROM pragma_data_version()) != ?"
			rargs = append(rargs, q.mark)
		}
		parts = append(parts, r)
		args = append(args, rargs...)
	}
	return with + strings.Join(parts, " UNION ALL "), args
}

// filter is the WHERE of the changed rows: stamped after the position
// (and, in a commit cut by a page, after its key), at most seq, with a
// whole ver, in one of the ranges.
func (q changeQuery) filter() (where []string, args []any) {
	where, args = []string{"ver > ?"}, []any{q.after}
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
	return append(where, "("+strings.Join(rngs, " OR ")+")"), args
}

// headerSQL is the page's header row: seq, the watch's data_version mark,
// the row count when asked, the next window's start (unindexed) and
// whether ver is indexed.
func (q changeQuery) headerSQL() string {
	count, next := "NULL", "NULL"
	if q.count {
		count = "(SELECT count(*) FROM kv)"
	}
	if !q.indexed {
		next = "(SELECT min(rowid) FROM kv WHERE rowid > (SELECT max(lo, hi) FROM b))"
	}
	mark := "NULL"
	if q.onWatch {
		mark = "(SELECT data_version FROM pragma_data_version())"
	}
	return "SELECT " + fmt.Sprint(rowHeader) + ", NULL, NULL, seq, " + mark + ", " + count + ", " + next + ", " + verIndexedSQL + " FROM kv_meta WHERE id = 0"
}

// recheckSQL selects (kind, k, v, ver, expires_at, position, NULL, NULL)
// of the live rows at raw keys, handed over as one JSON array of hex
// strings: one statement argument however many keys there are. value
// selects v (Store.valueSQL; json_each has no column v, so v is kv's).
func recheckSQL(raws [][]byte, now int64, value string) (string, []any) {
	var b strings.Builder
	b.WriteByte('[')
	for i, r := range raws {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%x"`, r)
	}
	b.WriteByte(']')
	return "SELECT " + fmt.Sprint(rowRecheck) + ", kv.k, " + value + ", kv.ver, kv.expires_at, j.key, NULL, NULL FROM json_each(?) AS j JOIN kv ON kv.k = unhex(j.value) " +
		"WHERE (kv.expires_at IS NULL OR kv.expires_at > ?)", []any{b.String(), now}
}

// changeStatement runs one statement of a change scan.
func (s *Store) changeStatement(ctx context.Context, q changeQuery) (changeAnswer, error) {
	var a changeAnswer
	if len(q.recheck) > 0 {
		a.recheck = make([]*Entry, len(q.recheck))
	}
	text, args := q.sql()
	scan := s.scanKinds
	if q.onWatch {
		scan = s.file.scanKindsOnWatch
	} else if q.lockFree {
		scan = s.scanKindsLockFree
	}
	err := scan(ctx, text, args, func(kind int, e Entry, x, y, z sql.NullInt64) {
		switch kind {
		case rowHeader:
			a.seq, a.rows, a.indexed = e.Ver, x.Int64, z.Int64 != 0
			if e.ExpiresAt != nil {
				a.mark = *e.ExpiresAt
			}
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
	return s.readKinds(rows, fn)
}

// scanKindsLockFree is scanKinds without locks on a rollback-journal
// file (lockfree.go); with them when the file kept being written.
func (s *Store) scanKindsLockFree(ctx context.Context, q string, args []any, fn func(kind int, e Entry, x, y, z sql.NullInt64)) error {
	type row struct {
		kind    int
		e       Entry
		x, y, z sql.NullInt64
	}
	var got []row
	_, ok, err := s.readLockFree(ctx, func(ctx context.Context, conn lfConn) error {
		got = got[:0]
		rows, err := conn.QueryContext(ctx, q, args...)
		if err != nil {
			return s.classify(err)
		}
		defer rows.Close()
		return s.readKinds(rows, func(kind int, e Entry, x, y, z sql.NullInt64) {
			got = append(got, row{kind, e, x, y, z})
		})
	})
	if !ok {
		return s.scanKinds(ctx, q, args, fn)
	}
	for _, r := range got {
		fn(r.kind, r.e, r.x, r.y, r.z)
	}
	return err
}

// scanKindsOnWatch is scanKinds on the watch connection (version.go),
// whose data_version is comparable from one page to the next.
func (f *fileConn) scanKindsOnWatch(ctx context.Context, q string, args []any, fn func(kind int, e Entry, x, y, z sql.NullInt64)) error {
	s, w := f.s, &f.s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	conn, err := f.watchConn(ctx)
	if err != nil {
		return err
	}
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		f.dropWatch()
		return s.classify(err)
	}
	defer rows.Close()
	return s.readKinds(rows, fn)
}

// readKinds hands each (kind, k, v, ver, expires_at, x, y, z) row to fn;
// a header row carries its expires_at column (the mark on the watch
// connection).
func (s *Store) readKinds(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
}, fn func(kind int, e Entry, x, y, z sql.NullInt64)) error {
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
		e := Entry{Ver: ver.n, ExpiresAt: exp.at}
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
	q, args := recheckSQL(raws, s.Now(), s.valueSQL())
	scan := s.scanKinds
	if s.conn.windowed() {
		scan = s.scanKindsLockFree
	}
	err := scan(ctx, q, args, func(_ int, e Entry, x, _, _ sql.NullInt64) {
		if i := int(x.Int64); i >= 0 && i < len(out) {
			out[i] = &e
		}
	})
	return out, err
}
