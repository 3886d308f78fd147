package store

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"kvdeck/internal/retry"
)

// How a scan reads a server (Scan over HTTP or WebSocket: list, dump,
// diff, watch's catch-up, the value search) is decided here, and only
// here: in keyset pages, each one plain statement
//
//	SELECT k, v, ver, expires_at FROM kv WHERE k > <last key> ... ORDER BY k LIMIT n
//
// whose n is sized from the rows of the page before, so that a page's
// answer stays near scanPageBytes (entryCost, which over-estimates
// the answer; sqld refuses one over 10 MB). The first page, with no
// rows before it, is sized by the server (cutPageSQL) over at most
// firstPageRows rows: a scan of that many rows is one request, whatever
// their sizes, and the running sum, which costs the server about as
// much again as the rows it sums, covers a small share of a large scan.
// The next page is read while the caller handles this one (scanPages).
// Such pages cost sqld the least CPU of the ways measured (Hrana 3's
// streamed cursor several times more, a running sum in every page about
// twice): see docs/design/remote-scans.md; TestScanServerCPULarge keeps
// the ratio.
//
// A page the server refuses as too large (its rows grew past what the
// page before promised) is read again cut by the server's own count of
// its rows' bytes (cutPageSQL: a running sum over keys and value
// lengths, not values); a row too large for any page (a value near the
// response limit) is streamed alone through the cursor over HTTP.
//
// A page whose request fails on the way (the connection, a server's
// 5xx or 429, no answer within the request timeout) is sent once more:
// it is a read, and none of its rows reached the caller. A second
// failure is the scan's error.

// minRowCost is the least entryCost of a row (no key, no value): the
// first page's bound on its rows, so that the server's sizing of it looks
// at no more rows than a page of its budget can hold.
const minRowCost = 160

// firstPageRows bounds the rows of a scan's first page, the one the
// server sizes (about 2.6 MB at minRowCost): unbounded, its running sum
// read half of a 100k-row store a second time. With the page of about
// 8 MB after it, a listing of 50k small rows is still two requests.
const firstPageRows = 16384

// remotePager reads the pages of one remote scan.
type remotePager struct {
	s    *Store
	opts ListOptions
	// rowCost is the average entryCost of the rows of the last page
	// read, 0 before the first.
	rowCost int64
}

// next returns the page of p's scan that starts after cursor (the
// first page for ""), at most limit rows (0: as many as the sizing
// allows), sized from last, the page before.
func (p *remotePager) next(ctx context.Context, cursor string, limit int, last []Entry) (Page, error) {
	maxRows, budget := p.s.scanPage()
	if m := p.opts.MaxBytes; m > 0 && m < budget {
		budget = m
	}
	if len(last) > 0 {
		var sum int64
		for _, e := range last {
			sum += entryCost(e)
		}
		p.rowCost = sum / int64(len(last))
	}
	cost := p.rowCost
	if cost <= 0 {
		cost = minRowCost // no page holds more rows than this allows
	}
	rows := int(min(max(budget/cost, 1), int64(maxRows)))
	if limit > 0 && limit < rows {
		rows = limit
	}
	page := p.opts
	page.Cursor = cursor
	lo, hi, err := listRange(page)
	if err != nil {
		return Page{}, err
	}
	where, args, order := p.s.listWhere(page, lo, hi)
	if p.rowCost <= 0 {
		// Nothing seen yet to size the page by: the server sizes it,
		// over few rows; the pages after it grow from its rows.
		return p.cut(ctx, where, args, order, min(rows, firstPageRows), budget)
	}
	q := "SELECT " + p.s.entrySQL() + " FROM kv WHERE " + where + " ORDER BY k " + order + " LIMIT ?"
	entries, _, err := p.s.readPage(ctx, q, append(args, rows+1), rows+1, false)
	if tooLarge(err) {
		return p.cut(ctx, where, args, order, rows, budget)
	}
	if err != nil {
		return Page{}, err
	}
	out := Page{Entries: entries}
	if len(entries) > rows {
		out.Entries = entries[:rows]
		out.Cursor = CursorAfter(entries[rows-1])
	}
	return out, nil
}

// cut reads the page of at most rows rows that a plain statement could
// not carry, ending it where its rows pass budget by the server's count
// (the first row always comes); when even that is refused, the range's
// first row alone through the cursor.
func (p *remotePager) cut(ctx context.Context, where string, args []any, order string, rows int, budget int64) (Page, error) {
	q := cutPageSQL(p.s.entrySQL(), where, order)
	qargs := append(append(append(append([]any{}, args...), rows+1, budget), args...), rows+1)
	entries, cut, err := p.s.readPage(ctx, q, qargs, rows+1, true)
	if tooLarge(err) {
		return p.hugeRow(ctx, where, args, order)
	}
	if err != nil {
		return Page{}, err
	}
	out := Page{Entries: entries}
	switch {
	case len(entries) > rows:
		out.Entries = entries[:rows]
		out.Cursor = CursorAfter(entries[rows-1])
	case cut > 0 && len(entries) > 0:
		out.Cursor = CursorAfter(entries[len(entries)-1])
	}
	return out, nil
}

// cutPageSQL is a page of the rows of where, in order, ended by the
// server's own count of their bytes: the cut is the first row that
// would take the page past the budget, never the first row (a page
// holds one row at least), found by a running sum over keys and value
// lengths (octet_length reads a value's length without its bytes). Its
// arguments: where's, the rows of the page (limit), the budget, where's
// again, the limit again. A fifth column says whether the page was cut
// (more rows follow).
func cutPageSQL(entrySQL, where, order string) string {
	cmp := "<"
	if order == "DESC" {
		cmp = ">"
	}
	return "WITH cut AS (SELECT k FROM (SELECT k, c, sum(c) OVER (ORDER BY k " + order + " ROWS UNBOUNDED PRECEDING) - c AS before FROM (" +
		"SELECT k, 160 + 2 * coalesce(length(k), 0) + 2 * coalesce(octet_length(v), 0) AS c FROM kv WHERE " + where + " ORDER BY k " + order + " LIMIT ?)) " +
		"WHERE before > 0 AND before + c > ? LIMIT 1) " +
		"SELECT " + entrySQL + ", (SELECT count(*) FROM cut) FROM kv WHERE " + where +
		" AND ((SELECT count(*) FROM cut) = 0 OR k " + cmp + " (SELECT k FROM cut)) ORDER BY k " + order + " LIMIT ?"
}

// hugeRow reads the first row of where alone, through the cursor (over
// HTTP): a row no page can carry.
func (p *remotePager) hugeRow(ctx context.Context, where string, args []any, order string) (Page, error) {
	if !p.s.conn.traits().cursor {
		return Page{}, fmt.Errorf("%s refused a row as larger than its answer limit (RESPONSE_TOO_LARGE); over HTTP (http://, https://, libsql://) kvdeck reads such a row streamed", p.s.display)
	}
	st := stmt{sql: "SELECT " + p.s.entrySQL() + " FROM kv WHERE " + where + " ORDER BY k " + order + " LIMIT 1", args: args}
	var out Page
	err := p.s.retryRead(ctx, func() error {
		out.Entries = out.Entries[:0]
		return p.s.readCursor(ctx, cursorRead{steps: []stmt{st}, keyless: -1}, func(e Entry) error {
			out.Entries = append(out.Entries, e)
			return nil
		})
	}, func() bool { return len(out.Entries) == 0 })
	if err != nil || len(out.Entries) == 0 {
		return Page{}, err
	}
	out.Cursor = CursorAfter(out.Entries[0])
	return out, nil
}

// readPage runs a page's statement (rows hints how many rows it holds;
// with cut, a fifth column, whose last value it returns), sent once more
// when its request fails on the way (retryRead).
func (s *Store) readPage(ctx context.Context, q string, args []any, rows int, cut bool) (entries []Entry, flag int64, err error) {
	err = s.retryRead(ctx, func() error {
		entries, flag, err = s.collectInto(ctx, make([]Entry, 0, rows), q, args, cut)
		return err
	}, func() bool { return true })
	return entries, flag, err
}

// retryPause is how long a read that failed on the way waits before it
// is sent again.
const retryPause = 100 * time.Millisecond

// retryRead runs read, and once more when it failed on the way
// (transient) and nothing of it reached the caller (unseen).
func (s *Store) retryRead(ctx context.Context, read func() error, unseen func() bool) error {
	again := func(err error) bool { return transient(err) && unseen() }
	return retry.Until(ctx, retry.Policy{Backoff: retry.Backoff{First: retryPause, Max: retryPause}, Tries: 2}, again, read)
}

// transientStatus is an HTTP status that a request sent again may not
// meet: 429 and the 5xx.
var transientStatus = regexp.MustCompile(`error code (429|5\d\d)\b`)

// transient reports whether err is a request's failure on the way (the
// connection, a server's overload) rather than an answer: a statement's
// error, a refused token or the caller's end are not.
func transient(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, ErrUnauthorized) {
		return false
	}
	return errors.Is(err, ErrUnreachable) || transientStatus.MatchString(err.Error())
}
