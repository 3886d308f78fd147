package store

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sync"
)

// Reading a WAL database read-only without leaving files behind.
//
// To read a WAL database SQLite needs its -shm (the WAL index) and opens
// its -wal, and creates both when they are missing; a read-only
// connection never removes them (the last writer to close does). So a
// read-only open of a WAL file nobody has open would leave two new files
// in the directory.
//
// kvdeck never opens (and so never closes) a file descriptor of its own on
// the database or its -wal/-shm: closing one drops every POSIX lock this
// process holds on that file, SQLite's included, which broke SQLite's
// locking for the other connections of the process. It looks at them with
// stat only. What it does instead:
//
//   - A read-only open of a WAL file whose -wal and -shm are both absent
//     (nobody has it open in WAL mode, and no crashed writer left commits)
//     reads it with SQLite's immutable=1: no locks, no -wal, no -shm; the
//     directory stays as it was.
//   - immutable=1 promises SQLite that nobody changes the file, which a
//     writer starting later would break. So before every statement the
//     store checks with stat that the file is unchanged (same inode, size
//     and modification time) and that no -wal or -shm appeared; if a
//     writer came, the store reads from then on through an ordinary
//     read-only connection (mode=ro, with locks), which sees the writer's
//     commits in its -wal. After every statement it checks the file again:
//     a writer that checkpointed into the file during the statement may
//     have changed pages under it, so that answer is refused (ErrLocked:
//     read again) rather than trusted. What stat cannot see: a writer that
//     opens, commits, checkpoints and closes within one statement and
//     within one tick of the file system's clock leaves size and time as
//     they were.
//   - When the -wal or -shm existed at open, they belong to a live (or
//     crashed) writer: the store reads ordinarily and creates nothing.
//   - Files that were absent at open and exist when the store closes (a
//     writer came meanwhile, or only one of them existed) are named by
//     LeftFiles, so that the caller can say so: kvdeck does not remove them,
//     as it cannot tell without SQLite's locks whether someone uses them.

// immutableRead is the state of a store reading a WAL file as immutable.
type immutableRead struct {
	path  string
	stamp os.FileInfo // the database file when Open began
	dsn   string      // the ordinary read-only URI, for when a writer comes

	mu   sync.Mutex
	live *sql.DB // the ordinary read-only connection; nil until a writer came
}

// sidecars are the -wal and -shm paths of an embedded database.
func sidecars(path string) []string { return []string{path + "-wal", path + "-shm"} }

// absentSidecars returns those of path's -wal and -shm that do not exist.
func absentSidecars(path string) []string {
	var out []string
	for _, p := range sidecars(path) {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			out = append(out, p)
		}
	}
	return out
}

// sameFile reports whether the database file is as it was at open.
func (r *immutableRead) sameFile() bool {
	st, err := os.Stat(r.path)
	return err == nil && os.SameFile(st, r.stamp) && st.Size() == r.stamp.Size() && st.ModTime().Equal(r.stamp.ModTime())
}

// untouched reports whether nobody has opened the file to write since
// Open: the file is unchanged and neither -wal nor -shm exists.
func (r *immutableRead) untouched() bool {
	return r.sameFile() && len(absentSidecars(r.path)) == 2
}

// reader returns the connection pool a read runs on and, when that is the
// immutable one, the check to run after the statement.
func (f *fileConn) reader() (*sql.DB, func() error, error) {
	r := f.imm
	if r == nil {
		return f.db, nil, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live != nil {
		return r.live, nil, nil
	}
	if r.untouched() {
		return f.db, f.tornRead, nil
	}
	conn, err := fileConnector(r.dsn)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %s: %w", ErrBadURL, f.s.display, err)
	}
	r.live = sql.OpenDB(conn)
	return r.live, nil, nil
}

// tornRead fails a statement that ran on the immutable connection while
// the file changed under it.
func (f *fileConn) tornRead() error {
	if f.imm.sameFile() {
		return nil
	}
	return fmt.Errorf("%w: %s changed while kvdeck read it without locks (a writer opened it and wrote into the file), so this answer may mix old and new pages; read again", ErrLocked, f.s.display)
}

// closeImmutable closes the ordinary connection opened for a writer.
func (f *fileConn) closeImmutable() error {
	if f.imm == nil {
		return nil
	}
	f.imm.mu.Lock()
	defer f.imm.mu.Unlock()
	if f.imm.live == nil {
		return nil
	}
	return f.imm.live.Close()
}

// LeftFiles names the -wal and -shm files of a read-only embedded store
// that did not exist when it was opened and exist now: SQLite created
// them for this store or for a writer that came meanwhile, and kvdeck
// leaves them (see readonly.go). Call it after Close. It is empty for
// stores that may write and for remote ones.
func (s *Store) LeftFiles() []string { return s.conn.leftFiles() }

func (f *fileConn) leftFiles() []string {
	var out []string
	for _, p := range f.absentAtOpen {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}
