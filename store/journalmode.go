package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// A file store's journal mode, and the switch between its two kinds
// (docs/stores.md, "Rollback journal or WAL").
//
// On a rollback-journal file every reader holds SQLite's SHARED lock for
// its read, and a writer that sets no busy timeout (the reference's
// service) fails a commit that meets one. In WAL mode readers and the
// writer never block each other. The mode is a property of the file
// (its header's bytes 18 and 19: 2 for WAL), which every connection of
// every process follows from its next transaction on. kvdeck never
// switches it unasked: SetJournalMode is `kvdeck wal` and its undo.
//
// The switch is a write transaction on page 1 that needs SQLite's
// EXCLUSIVE lock, and while kvdeck holds it a service's commit fails at
// once. So it is made only while no other process of this machine has
// the file open (otherOpeners), tried once without waiting (busy_timeout
// 0): a connection reading or writing at that instant makes it fail,
// not wait, and nothing changes.

// JournalMode is how a file store's database journals its commits.
type JournalMode string

// The journal modes of a file; a server's database has none ("").
const (
	// JournalRollback: a rollback journal (SQLite's DELETE, TRUNCATE or
	// PERSIST; the reference leaves a file it creates in DELETE).
	JournalRollback JournalMode = "rollback"
	// JournalWAL: a write-ahead log (-wal and -shm beside the file).
	JournalWAL JournalMode = "wal"
)

// SettingJournalMode names the journal mode in a SettingChange.
const SettingJournalMode = "journal_mode"

// SettingChange is a store-level setting changed by a write that touches
// no row (PendingWrite.Setting): the journal mode of a file, from one
// JournalMode to another.
type SettingChange struct {
	Name     string
	From, To string
}

// JournalMode is the file's journal mode as its header said when Open
// read it (a file Open created is WAL), or as SetJournalMode left it;
// "" for a server's database, whose files the server owns. It reads no
// file: another process switching the mode later is seen by the next
// Open.
func (s *Store) JournalMode() JournalMode { return s.conn.journalMode() }

func (f *fileConn) journalMode() JournalMode {
	m, _ := f.journal.Load().(JournalMode)
	return m
}

// RollbackAdvice says, in three sentences, what the rollback journal of
// the file at path costs, what WAL changes, and the command that
// switches (its path made absolute).
func RollbackAdvice(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return "This file is in rollback-journal mode: while any reader holds its lock (kvdeck's or the service's own), " +
		"a commit fails at once when its writer sets no busy timeout, as the reference's service does. " +
		"In WAL mode readers and the writer never block each other; the file gains -wal and -shm files beside it, " +
		"and every process that opens it must run on this host (a network file system breaks WAL's shared memory). " +
		"With the service stopped, `kvdeck wal --db " + shellWord("file:"+path) + "` switches it (and `kvdeck undo` switches back)."
}

// JournalAdvice is RollbackAdvice for this store when it is a
// rollback-journal file, "" otherwise. Where kvdeck cannot read the file
// without SQLite's lock either (LockFreeNotice), it says so first: then
// kvdeck's own reads fail such commits too.
func (s *Store) JournalAdvice() string {
	if s.JournalMode() != JournalRollback {
		return ""
	}
	advice := RollbackAdvice(s.target.Path)
	if l := s.conn.lockFree(); l != nil && !s.knobs.lockFreeOff && !l.armed() {
		advice = "kvdeck cannot read this file without SQLite's read lock here either (" + l.blind + "), so its own reads fail such commits too. " + advice
	}
	return advice
}

// shellWord quotes w for a POSIX shell when it holds anything but
// letters, digits and -_./:=+,@.
func shellWord(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// CheckJournalSwitch says why SetJournalMode would refuse now, nil when
// it would try: a server's database (the server owns its files), a store
// opened read-only, or another process of this machine that has the file
// open (ErrLocked, naming it). Where kvdeck cannot see other processes
// (SeesOpeners is false) it names none.
func (s *Store) CheckJournalSwitch() error {
	if !s.conn.traits().ownsFiles {
		return fmt.Errorf("%w: %s is a server's database: the server owns its files and their journal mode (sqld keeps its databases in WAL)", ErrInvalidArgument, s.display)
	}
	if err := s.checkWritable("switching the journal mode"); err != nil {
		return err
	}
	openers, err := otherOpeners(s.target.Path)
	if err != nil {
		return fmt.Errorf("%w: %s: looking for other processes that have it open: %w", ErrUnreachable, s.display, err)
	}
	if len(openers) == 0 {
		return nil
	}
	names := make([]string, len(openers))
	for i, o := range openers {
		names[i] = o.String()
	}
	return fmt.Errorf("%w: %s is open in %s; switching its journal mode takes SQLite's exclusive lock, which fails any commit made meanwhile by a writer that sets no busy timeout (the reference's service sets none), so kvdeck switches only a file no other process has open: stop them, switch, and start them again (SQLite opens the file in its new mode)",
		ErrLocked, s.display, strings.Join(names, ", "))
}

// SetJournalMode switches the file to mode, on a connection of its own
// tried once without waiting; changed is false when the file was in that
// mode already (nothing is written then, and nothing journaled). It
// refuses what CheckJournalSwitch refuses, and a file that a connection
// of this or another process is reading or writing at that instant
// (ErrLocked; nothing changed). The store's own idle connections are
// closed first (in WAL mode each holds a shared lock on the file while
// open). It is journaled like every write (Kind "journal-mode", with
// its SettingChange), so an undo switches back.
func (s *Store) SetJournalMode(ctx context.Context, mode JournalMode) (changed bool, err error) {
	pragma := map[JournalMode]string{JournalWAL: "WAL", JournalRollback: "DELETE"}[mode]
	if pragma == "" {
		return false, fmt.Errorf("%w: journal mode %q: want %s or %s", ErrInvalidArgument, mode, JournalWAL, JournalRollback)
	}
	if err := s.CheckJournalSwitch(); err != nil {
		return false, err
	}
	s.closeIdle()
	db, err := sql.Open("sqlite", s.target.dsn(false, 0))
	if err != nil {
		return false, s.classify(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return false, s.classify(err)
	}
	defer conn.Close()
	var was string
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&was); err != nil {
		return false, s.switchFailed(err)
	}
	from := journalModeOf(was)
	s.file.journal.Store(from)
	if from == mode {
		return false, nil
	}
	j, err := s.beginWrite(ctx, PendingWrite{Kind: "journal-mode",
		Setting: &SettingChange{Name: SettingJournalMode, From: string(from), To: string(mode)}})
	if err != nil {
		return false, err
	}
	var now string
	err = conn.QueryRowContext(ctx, "PRAGMA journal_mode = "+pragma).Scan(&now)
	switch {
	case err != nil:
		err = s.switchFailed(err)
	case journalModeOf(now) != mode:
		err = fmt.Errorf("%w: SQLite kept %s in %s mode (WAL needs shared memory, which this file's system may not offer)", ErrInvalidArgument, s.display, now)
	}
	j.end(err == nil, "", err)
	if err != nil {
		return false, err
	}
	s.file.journal.Store(mode)
	s.noteJournal(now)
	return true, nil
}

// journalModeOf reads PRAGMA journal_mode's answer: "wal", or one of a
// rollback journal's modes (memory and off are connection settings over
// a rollback-journal file).
func journalModeOf(pragma string) JournalMode {
	if strings.EqualFold(pragma, "wal") {
		return JournalWAL
	}
	return JournalRollback
}

// switchFailed explains an error of the switch's connection: a lock met
// at once (it waits for none) says the file was in use, and that
// nothing changed.
func (s *Store) switchFailed(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) && (se.Code()&0xff == sqlite3.SQLITE_BUSY || se.Code()&0xff == sqlite3.SQLITE_LOCKED) {
		return fmt.Errorf("%w: %s was in use at that instant (a connection was reading or writing it); kvdeck tried once without waiting, so as not to hold up anyone's commit, and changed nothing: try again when it is idle: %w", ErrLocked, s.display, err)
	}
	return s.classify(err)
}

// closeIdle closes the store's idle connections and its watch
// connection (Version's), which database/sql and Version open again
// when next needed: in WAL mode each holds a shared lock on the file
// for as long as it is open, which would refuse the switch back.
func (s *Store) closeIdle() {
	w := &s.watch
	w.mu.Lock()
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
	w.valid = false // data_version counts per connection
	w.mu.Unlock()
	s.file.db.SetMaxIdleConns(0)
	s.file.db.SetMaxIdleConns(2) // database/sql's default, which the store keeps
}

// opener is another process that has a file store's database open.
type opener struct {
	pid     int
	command string
	// unseen: its descriptors could not be listed (another user's
	// process, running as the file's owner): it may have the file open.
	unseen bool
}

// String is "process 4242 (deno)", or for an unseen one "process 4242
// (deno) of the file's owner, whose open files kvdeck may not list".
func (o opener) String() string {
	s := "process " + strconv.Itoa(o.pid)
	if o.command != "" {
		s += " (" + o.command + ")"
	}
	if o.unseen {
		s += " of the file's owner, whose open files kvdeck may not list (run kvdeck as that user or root to look)"
	}
	return s
}
