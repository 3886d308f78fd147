package changefeed

import (
	"context"
	"database/sql"
	"errors"

	_ "modernc.org/sqlite" // the rows seen are kept in a temporary SQLite file

	"kvdeck/codec"
	"kvdeck/store"
)

// DiskRows holds the rows a watch has seen (key, stamp, expiry, and the
// value while the budget allows) in a private temporary SQLite database
// rather than in memory: SQLite's empty file name makes a file of its
// own, unlinked from the directory as it is created, and keeps in memory
// no more than its page cache. A watch of any prefix that list can read
// holds a bounded heap. Re-reads go round it in key order.
type DiskRows struct {
	// MaxValue and Budget bound the values kept: at most MaxValue bytes
	// each and Budget in all; a row's value beyond them is not kept (Row.Unkept).
	MaxValue, Budget int64

	db   *sql.DB
	conn *sql.Conn
	// the statements of every row: prepared once
	ins, upd, sel *sql.Stmt
	n             int // rows held
	// kept is the bytes of the values held (put's budget).
	kept int64
	// cursor is the last key a recheck batch named (nil: from the first).
	cursor []byte
	// err is the first error of the temporary database (Err).
	err error
}

// NewDiskRows opens the private temporary database, keeping values up
// to maxValue bytes each and budget in all.
func NewDiskRows(maxValue, budget int64) (*DiskRows, error) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	for _, q := range []string{
		"PRAGMA journal_mode = OFF",
		"PRAGMA synchronous = OFF",
		"CREATE TABLE seen (k BLOB PRIMARY KEY, ver INTEGER NOT NULL, exp INTEGER, v BLOB, vnull INTEGER NOT NULL, unkept INTEGER NOT NULL, malformed TEXT NOT NULL) WITHOUT ROWID",
		"CREATE INDEX seen_exp ON seen (exp) WHERE exp IS NOT NULL",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			conn.Close()
			db.Close()
			return nil, err
		}
	}
	r := &DiskRows{MaxValue: maxValue, Budget: budget, db: db, conn: conn}
	for _, p := range []struct {
		st **sql.Stmt
		q  string
	}{
		{&r.ins, "INSERT OR IGNORE INTO seen (k, ver, exp, v, vnull, unkept, malformed) VALUES (?, ?, ?, ?, ?, ?, ?)"},
		{&r.upd, "UPDATE seen SET ver = ?2, exp = ?3, v = ?4, vnull = ?5, unkept = ?6, malformed = ?7 WHERE k = ?1"},
		{&r.sel, "SELECT ver, exp, v, vnull, unkept, malformed FROM seen WHERE k = ?"},
	} {
		if *p.st, err = conn.PrepareContext(ctx, p.q); err != nil {
			r.Close()
			return nil, err
		}
	}
	return r, nil
}

// Close removes the temporary database.
func (r *DiskRows) Close() {
	for _, st := range []*sql.Stmt{r.ins, r.upd, r.sel} {
		if st != nil {
			st.Close()
		}
	}
	r.conn.Close()
	r.db.Close()
}

// fail keeps the first error.
func (r *DiskRows) fail(err error) {
	if err != nil && r.err == nil {
		r.err = err
	}
}

// exec runs a statement, keeping its error.
func (r *DiskRows) exec(q string, args ...any) int64 {
	res, err := r.conn.ExecContext(context.Background(), q, args...)
	if err != nil {
		r.fail(err)
		return 0
	}
	n, _ := res.RowsAffected()
	return n
}

// get returns the row seen at raw (Value nil when unkept: its value was
// not kept) and, when it was kept, the size of its value.
func (r *DiskRows) get(raw string) (e store.Entry, unkept bool, kept int64, had bool) {
	var exp sql.NullInt64
	var v []byte
	var vnull bool
	err := r.sel.QueryRowContext(context.Background(), []byte(raw)).
		Scan(&e.Ver, &exp, &v, &vnull, &unkept, &e.Malformed)
	if errors.Is(err, sql.ErrNoRows) {
		return e, false, 0, false
	}
	if err != nil {
		r.fail(err)
		return e, false, 0, false
	}
	e.Raw = []byte(raw)
	e.Key, e.KeyErr = codec.Decode(e.Raw)
	if e.KeyErr != nil {
		e.Key = nil
	}
	if exp.Valid {
		at := exp.Int64
		e.ExpiresAt = &at
	}
	e.ValueNull = vnull
	switch {
	case unkept || vnull:
	case v == nil:
		e.Value = []byte{}
	default:
		e.Value, kept = v, int64(len(v))
	}
	return e, unkept, kept, true
}

// put records e, with its value while that is at most max bytes and the
// values kept stay within budget (kept).
func (r *DiskRows) put(e store.Entry, max, budget int64) {
	ctx := context.Background()
	n := int64(len(e.Value))
	value := func() (any, bool) {
		if n > max || r.kept+n > budget {
			return nil, false
		}
		r.kept += n
		if e.ValueNull {
			return nil, true
		}
		return append([]byte{}, e.Value...), true
	}
	// A new row (all of start's) is one statement; a row seen before
	// gives back its value's share of the budget first.
	v, keep := value()
	res, err := r.ins.ExecContext(ctx, e.Raw, e.Ver, e.ExpiresAt, v, e.ValueNull, !keep, e.Malformed)
	if err != nil {
		r.fail(err)
		return
	}
	if added, _ := res.RowsAffected(); added == 1 {
		r.n++
		return
	}
	if keep {
		r.kept -= n
	}
	_, _, replaced, _ := r.get(string(e.Raw))
	r.kept -= replaced
	v, keep = value()
	_, err = r.upd.ExecContext(ctx, e.Raw, e.Ver, e.ExpiresAt, v, e.ValueNull, !keep, e.Malformed)
	r.fail(err)
}

// del forgets the row at raw.
func (r *DiskRows) del(raw string) {
	if _, _, kept, had := r.get(raw); had {
		r.kept -= kept
		r.n -= int(r.exec("DELETE FROM seen WHERE k = ?", []byte(raw)))
	}
}

// Begin and Commit bracket many puts (a watch's first read) in one
// transaction.
func (r *DiskRows) Begin()  { r.exec("BEGIN") }
func (r *DiskRows) Commit() { r.exec("COMMIT") }

// Err is the first error of the temporary database; the watch ends with
// it.
func (r *DiskRows) Err() error { return r.err }

// Kept is the bytes of the values kept.
func (r *DiskRows) Kept() int64 { return r.kept }

// Get is the row seen at raw (Value nil when unkept).
func (r *DiskRows) Get(raw []byte) (Row, bool) {
	e, unkept, _, had := r.get(string(raw))
	return Row{Entry: e, Unkept: unkept}, had
}

// Put keeps e, with its value within MaxValue and Budget.
func (r *DiskRows) Put(e store.Entry) { r.put(e, r.MaxValue, r.Budget) }

// Drop forgets the row at raw.
func (r *DiskRows) Drop(raw []byte) { r.del(string(raw)) }

// Len is how many rows are kept.
func (r *DiskRows) Len() int { return r.n }

// Next is the next n rows after the last batch, in key order, round and
// round.
func (r *DiskRows) Next(n int) [][]byte { return r.batch(n) }

// Expired is the rows whose expiry is at or before now, in key order.
func (r *DiskRows) Expired(now int64) [][]byte {
	var out [][]byte
	for _, k := range r.expired(now) {
		out = append(out, []byte(k))
	}
	return out
}

// Settle does nothing: every row seen is kept.
func (r *DiskRows) Settle() {}

// expired returns the keys of the rows seen whose expiry is at or before
// now, in key order.
func (r *DiskRows) expired(now int64) []string {
	return r.keys("SELECT k FROM seen WHERE exp IS NOT NULL AND exp <= ? ORDER BY k", now)
}

// batch returns up to n keys seen after the cursor, in key order, going
// round to the first key past the last: every row seen comes within n/len
// batches.
func (r *DiskRows) batch(n int) [][]byte {
	var out [][]byte
	from := r.cursor
	if from == nil {
		from = []byte{}
	}
	for _, k := range r.keys("SELECT k FROM seen WHERE k > ? ORDER BY k LIMIT ?", from, n) {
		out = append(out, []byte(k))
	}
	if len(out) < n && r.cursor != nil {
		for _, k := range r.keys("SELECT k FROM seen WHERE k <= ? ORDER BY k LIMIT ?", r.cursor, n-len(out)) {
			out = append(out, []byte(k))
		}
	}
	if len(out) > 0 {
		r.cursor = out[len(out)-1]
	}
	return out
}

// keys runs a query answering keys.
func (r *DiskRows) keys(q string, args ...any) []string {
	rows, err := r.conn.QueryContext(context.Background(), q, args...)
	if err != nil {
		r.fail(err)
		return nil
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k []byte
		if err := rows.Scan(&k); err != nil {
			r.fail(err)
			return out
		}
		out = append(out, string(k))
	}
	r.fail(rows.Err())
	return out
}
