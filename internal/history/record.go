package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	_ "modernc.org/sqlite" // the history file is SQLite

	"kvdeck/internal/journal"
	"kvdeck/store"
)

// A Recording is kvdeck record's history of one store: a SQLite file
// (0600 in a 0700 directory) of points (the polls that found a change,
// each with its time and the store's seq) and row versions, each live
// from the point that found it up to the point that found it replaced or
// deleted. A point is the state as the recorder saw it: every row
// version live at it. The file is bounded by age and size (Trim), the
// oldest points folded into the first one kept.
//
// What a recording cannot know: a row set and overwritten (or set and
// deleted) between two polls is not in it; a delete is found when the
// recorder re-reads the key (in turn, a batch a poll), so its point may
// come later than the delete; an expired row stays until its key is set
// again (a sweep's removal is not seen); and nothing is known of the time
// the recorder was not running (the point where it resumed is marked as a
// gap: what changed meanwhile appears there).
type Recording struct {
	db   *sql.DB
	path string
}

// recordSchema is the history file's schema (version 1).
var recordSchema = []string{
	`CREATE TABLE IF NOT EXISTS info (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS points (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, seq INTEGER NOT NULL, gap INTEGER NOT NULL)`,
	// since/until are point ids; until NULL: live at the newest point.
	`CREATE TABLE IF NOT EXISTS rows (k BLOB NOT NULL, v BLOB, ver INTEGER NOT NULL, expires_at INTEGER, since INTEGER NOT NULL, until INTEGER, ended TEXT)`,
	`CREATE INDEX IF NOT EXISTS rows_key ON rows (k, since)`,
	`CREATE UNIQUE INDEX IF NOT EXISTS rows_current ON rows (k) WHERE until IS NULL`,
	`CREATE INDEX IF NOT EXISTS rows_until ON rows (until) WHERE until IS NOT NULL`,
}

// RecordingPath is where the history of the store at storeURL is kept:
// StateDir/history/<the journal's file stem>.history.db.
func RecordingPath(stateDir, storeURL string) (string, error) {
	stem, err := journal.FileStem(storeURL)
	if err != nil {
		return "", err
	}
	return filepath.Join(stateDir, "history", stem+".history.db"), nil
}

// ErrNoRecording: no history file exists for the store.
var ErrNoRecording = errors.New("no recording of this store (kvdeck record makes one)")

// OpenRecording opens the history file at path; create makes it (and its
// directory, 0700) when missing, else a missing file is ErrNoRecording.
// display names the store it records (kept on creation, checked after).
func OpenRecording(path, display string, create bool) (*Recording, error) {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if !create {
			return nil, fmt.Errorf("%w: %s", ErrNoRecording, path)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, err
		}
		f.Close()
	}
	if err := narrowTo(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if err := narrowTo(path, 0o600); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=auto_vacuum(INCREMENTAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	r := &Recording{db: db, path: path}
	ctx := context.Background()
	if create {
		// Only the recorder writes the schema; a reader (--at, history)
		// beside a running recorder takes no write lock.
		for _, q := range recordSchema {
			if _, err := db.ExecContext(ctx, q); err != nil {
				db.Close()
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		if _, err := db.ExecContext(ctx, `INSERT OR IGNORE INTO info (name, value) VALUES ('format', '1'), ('store', ?)`, display); err != nil {
			db.Close()
			return nil, err
		}
	}
	var format string
	if err := db.QueryRowContext(ctx, `SELECT value FROM info WHERE name = 'format'`).Scan(&format); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: not a kvdeck history file: %w", path, err)
	}
	if format != "1" {
		db.Close()
		return nil, fmt.Errorf("%s: a kvdeck history file of format %q; this kvdeck reads format 1", path, format)
	}
	return r, nil
}

// narrowTo chmods path to mode when it grants anything to group or others.
func narrowTo(path string, mode os.FileMode) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return err
	}
	return os.Chmod(path, mode)
}

// Path is the history file's path.
func (r *Recording) Path() string { return r.path }

// Close closes the file.
func (r *Recording) Close() error { return r.db.Close() }

// StoreName is the store the recording was made of, as it was shown.
func (r *Recording) StoreName(ctx context.Context) string {
	var s string
	_ = r.db.QueryRowContext(ctx, `SELECT value FROM info WHERE name = 'store'`).Scan(&s)
	return s
}

// Points lists the recorded points, oldest first.
func (r *Recording) Points(ctx context.Context) ([]Point, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT id, at, seq, gap FROM points ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Point
	for rows.Next() {
		var p Point
		var id int64
		if err := rows.Scan(&id, &p.At, &p.Seq, &p.Gap); err != nil {
			return nil, err
		}
		p.TXID = uint64(id)
		out = append(out, p)
	}
	return out, rows.Err()
}

// Poll is one point being written: the changes one poll found. Nothing
// is kept unless Commit finds that something changed.
type Poll struct {
	r       *Recording
	tx      *sql.Tx
	id      int64
	changed int
	// resync: every row of the store is given (Set) and the rows not
	// given are ended by Commit (a first poll, or one after a gap).
	resync bool
}

// Begin starts the point of a poll at time at (epoch ms). resync says that Set will be given every row of the store
// (the first poll, or the first after the recorder was not running):
// Commit then ends the rows not given, as deleted. gap marks a point
// after a time the recorder was not watching.
func (r *Recording) Begin(ctx context.Context, at int64, resync, gap bool) (*Poll, error) {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO points (at, seq, gap) VALUES (?, 0, ?)`, at, gap)
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	p := &Poll{r: r, tx: tx, id: id, resync: resync}
	if resync {
		if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS given (k BLOB PRIMARY KEY) WITHOUT ROWID`); err != nil {
			tx.Rollback()
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM temp.given`); err != nil {
			tx.Rollback()
			return nil, err
		}
	}
	return p, nil
}

// Set records a row seen at this poll: a new version unless the key's
// live version has the same ver already.
func (p *Poll) Set(ctx context.Context, row store.RawRow) error {
	if p.resync {
		if _, err := p.tx.ExecContext(ctx, `INSERT OR IGNORE INTO temp.given (k) VALUES (?)`, row.Key); err != nil {
			return err
		}
	}
	var ver int64
	err := p.tx.QueryRowContext(ctx, `SELECT ver FROM rows WHERE k = ? AND until IS NULL`, row.Key).Scan(&ver)
	switch {
	case err == nil && ver == row.Ver:
		return nil
	case err == nil:
		if _, err := p.tx.ExecContext(ctx, `UPDATE rows SET until = ?, ended = 'set' WHERE k = ? AND until IS NULL`, p.id, row.Key); err != nil {
			return err
		}
	case !errors.Is(err, sql.ErrNoRows):
		return err
	}
	_, err = p.tx.ExecContext(ctx, `INSERT INTO rows (k, v, ver, expires_at, since) VALUES (?, ?, ?, ?, ?)`, row.Key, row.Value, row.Ver, row.ExpiresAt, p.id)
	if err == nil {
		p.changed++
	}
	return err
}

// Gone records that the key's row was found deleted at this poll.
func (p *Poll) Gone(ctx context.Context, key []byte) error {
	res, err := p.tx.ExecContext(ctx, `UPDATE rows SET until = ?, ended = 'deleted' WHERE k = ? AND until IS NULL`, p.id, key)
	if err != nil {
		return err
	}
	n, _ := res.RowsAffected()
	p.changed += int(n)
	return nil
}

// Commit keeps the point, with the store's seq as the poll read it,
// when something changed (and reports how many rows did); a poll that
// changed nothing leaves no point. A resync first ends the live rows
// that were not given, as deleted.
func (p *Poll) Commit(ctx context.Context, seq int64) (int, error) {
	if p.resync {
		res, err := p.tx.ExecContext(ctx, `UPDATE rows SET until = ?, ended = 'deleted' WHERE until IS NULL AND since < ? AND k NOT IN (SELECT k FROM temp.given)`, p.id, p.id)
		if err != nil {
			p.tx.Rollback()
			return 0, err
		}
		n, _ := res.RowsAffected()
		p.changed += int(n)
		if _, err := p.tx.ExecContext(ctx, `DELETE FROM temp.given`); err != nil {
			p.tx.Rollback()
			return 0, err
		}
	}
	if p.changed == 0 {
		return 0, p.tx.Rollback()
	}
	if _, err := p.tx.ExecContext(ctx, `UPDATE points SET seq = ? WHERE id = ?`, seq, p.id); err != nil {
		p.tx.Rollback()
		return 0, err
	}
	return p.changed, p.tx.Commit()
}

// Rollback drops the point.
func (p *Poll) Rollback() error { return p.tx.Rollback() }

// Version is one version of a key in a recording: the row it had from
// point Since up to point Until (0: still at the newest point), and why
// that version ended ("set", "deleted", "" while live).
type Version struct {
	Row          store.RawRow
	Since, Until uint64
	Ended        string
}

// KeyVersions are the versions of the key recorded, oldest first.
func (r *Recording) KeyVersions(ctx context.Context, key []byte) ([]Version, error) {
	rows, err := r.db.QueryContext(ctx, `SELECT v, ver, expires_at, since, until, ended FROM rows WHERE k = ? ORDER BY since`, key)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Version
	for rows.Next() {
		v := Version{Row: store.RawRow{Key: key}}
		var until sql.NullInt64
		var ended sql.NullString
		var exp sql.NullInt64
		if err := rows.Scan(&v.Row.Value, &v.Row.Ver, &exp, &v.Since, &until, &ended); err != nil {
			return nil, err
		}
		if exp.Valid {
			e := exp.Int64
			v.Row.ExpiresAt = &e
		}
		v.Until, v.Ended = uint64(until.Int64), ended.String
		out = append(out, v)
	}
	return out, rows.Err()
}

// Materialize writes the store as of point id into a new database at
// path (0600): the kv and kv_meta tables of the reference, the rows live
// at the point with their stamps, seq as it was. A row whose value the
// recording holds as NULL (another program's) cannot be a kv row and is
// left out; skipped counts them.
func (r *Recording) Materialize(ctx context.Context, id uint64, path string) (skipped int64, err error) {
	var seq int64
	if err := r.db.QueryRowContext(ctx, `SELECT seq FROM points WHERE id = ?`, id).Scan(&seq); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return 0, fmt.Errorf("%w: poll %d is not in the recording", ErrNoPoint, id)
		}
		return 0, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	f.Close()
	conn, err := r.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS point`, path); err != nil {
		return 0, err
	}
	defer conn.ExecContext(context.Background(), `DETACH DATABASE point`)
	live := `since <= ?1 AND (until IS NULL OR until > ?1)`
	for _, q := range []string{
		`CREATE TABLE point.kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, ver INTEGER NOT NULL, expires_at INTEGER)`,
		`CREATE TABLE point.kv_meta (id INTEGER PRIMARY KEY CHECK (id = 0), seq INTEGER NOT NULL, ok INTEGER NOT NULL)`,
		`INSERT INTO point.kv_meta (id, seq, ok) VALUES (0, ?2, 0)`,
		`INSERT INTO point.kv (k, v, ver, expires_at) SELECT k, v, ver, expires_at FROM main.rows WHERE ` + live + ` AND v IS NOT NULL ORDER BY k`,
	} {
		if _, err := conn.ExecContext(ctx, q, int64(id), seq); err != nil {
			return 0, fmt.Errorf("writing poll %d: %w", id, err)
		}
	}
	err = conn.QueryRowContext(ctx, `SELECT count(*) FROM main.rows WHERE `+live+` AND v IS NULL`, int64(id)).Scan(&skipped)
	return skipped, err
}

// TrimResult says what Trim did.
type TrimResult struct {
	// Dropped is how many of the oldest points were folded into the first
	// one kept; Bytes the file's used size after.
	Dropped int
	Bytes   int64
	// OverSize: the newest point alone is larger than maxBytes, so the
	// file cannot be brought under it.
	OverSize bool
}

// Trim bounds the recording: points made before now-maxAge (0: no age
// bound) are folded into the first point kept, then more of the oldest
// while the file's used size is over maxBytes (0: no size bound). The
// newest point is always kept. Folding keeps every state from the first
// point kept on exactly as it was.
func (r *Recording) Trim(ctx context.Context, now, maxAge, maxBytes int64) (TrimResult, error) {
	var res TrimResult
	points, err := r.Points(ctx)
	if err != nil {
		return res, err
	}
	if len(points) < 2 {
		res.Bytes, err = r.usedBytes(ctx)
		res.OverSize = maxBytes > 0 && res.Bytes > maxBytes
		return res, err
	}
	keep := 0 // index of the first point kept
	if maxAge > 0 {
		for keep < len(points)-1 && points[keep].At < now-maxAge {
			keep++
		}
	}
	for {
		if keep > 0 {
			if err := r.fold(ctx, points[keep].TXID); err != nil {
				return res, err
			}
			res.Dropped += keep
			points = points[keep:]
			keep = 0
		}
		if res.Bytes, err = r.usedBytes(ctx); err != nil {
			return res, err
		}
		if maxBytes <= 0 || res.Bytes <= maxBytes {
			return res, nil
		}
		if len(points) < 2 {
			res.OverSize = true
			return res, nil
		}
		keep = max(1, (len(points)-1)/8) // an eighth of the points at a time
	}
}

// fold makes point first the oldest: versions that ended at or before it
// go, versions live at it start there, and older points go.
func (r *Recording) fold(ctx context.Context, first uint64) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range []string{
		`DELETE FROM rows WHERE until IS NOT NULL AND until <= ?1`,
		`UPDATE rows SET since = ?1 WHERE since < ?1`,
		`DELETE FROM points WHERE id < ?1`,
	} {
		if _, err := tx.ExecContext(ctx, q, int64(first)); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	_, err = r.db.ExecContext(ctx, `PRAGMA incremental_vacuum`)
	return err
}

// usedBytes is the file's size less its free pages.
func (r *Recording) usedBytes(ctx context.Context) (int64, error) {
	var pages, free, size int64
	for q, dst := range map[string]*int64{"PRAGMA page_count": &pages, "PRAGMA freelist_count": &free, "PRAGMA page_size": &size} {
		if err := r.db.QueryRowContext(ctx, q).Scan(dst); err != nil {
			return 0, err
		}
	}
	return (pages - free) * size, nil
}

// RecordingSource reads a recording as a Source.
type RecordingSource struct {
	R *Recording
}

// Kind is KindRecord.
func (s RecordingSource) Kind() string { return KindRecord }

// Describe names the file.
func (s RecordingSource) Describe() string { return "kvdeck record's history " + s.R.path }

// Limits is what a recording cannot know (see Recording).
func (s RecordingSource) Limits() string {
	return "a recording holds what kvdeck record saw at each poll: a row set and overwritten or deleted between two polls is not in it, a delete is found when its key's re-read comes round (its point may be later than the delete), a sweep's removal of an expired row is not seen, and the time record was not running is a gap"
}

// Points are the recorded points.
func (s RecordingSource) Points(ctx context.Context) ([]Point, error) { return s.R.Points(ctx) }

// Open writes the point's store into a file of w.
func (s RecordingSource) Open(ctx context.Context, p Point, w Dir) (Opened, error) {
	path, err := freshPath(w, "poll-"+strconv.FormatUint(p.TXID, 10))
	if err != nil {
		return Opened{}, err
	}
	if _, err := s.R.Materialize(ctx, p.TXID, path); err != nil {
		removeDB(path)
		return Opened{}, err
	}
	return Opened{URL: "file:" + path, Close: func(context.Context) error { return removeDB(path) }}, nil
}
