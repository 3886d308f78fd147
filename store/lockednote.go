package store

import (
	"errors"
	"fmt"
	"os"
)

// Locked reads of a rollback-journal file are the exception, and said.
//
// On a rollback-journal file every read goes without SQLite's locks
// (lockfree.go) where it can, so that a service committing without a
// busy timeout never meets one. Where it cannot (the file was written
// during every try, or a lock-free read is not possible or not correct
// here: lockedReadWhy), the read takes SQLite's SHARED lock, and a
// commit that meets it fails. The store says so once, before its first
// such read: Options.OnLockedRead is called with the text, and
// LockedReadNote returns it from then on (a front end without a stream
// to write to, the TUI, shows it from there).

// LockedReadNote is what the store said before its first read of a
// rollback-journal file with SQLite's locks; "" while it made none.
func (s *Store) LockedReadNote() string { return s.conn.lockedReadNote() }

func (f *fileConn) lockedReadNote() string {
	if p := f.lockNote.Load(); p != nil {
		return *p
	}
	return ""
}

// LockedReads counts the reads of a rollback-journal file the store made
// with SQLite's locks (tests, the lock matrix).
func (s *Store) LockedReads() int64 { return s.conn.lockedReadCount() }

func (f *fileConn) lockedReadCount() int64 { return f.lockedReads.Load() }

// lockedRead is called before every read with SQLite's locks: on a
// rollback-journal file the first one says so (OnLockedRead,
// LockedReadNote).
func (f *fileConn) lockedRead() {
	s := f.s
	if !f.rollback() {
		return
	}
	f.lockedReads.Add(1)
	if f.lockNote.Load() != nil {
		return
	}
	f.lockNoteOnce.Do(func() {
		text := fmt.Sprintf("%s is a rollback-journal file, and kvdeck now reads it with SQLite's locks: %s. "+
			"A commit another program makes while such a read holds its lock fails at once when it sets no busy timeout "+
			"(the reference's service sets none); in WAL mode readers never block a writer.", s.display, s.lockedReadWhy())
		f.lockNote.Store(&text)
		if f.onLockedRead != nil {
			f.onLockedRead(text)
		}
	})
}

// lockFreeBlocked says why a rollback-journal file may not be read
// without locks now, in words for the user (lockedRead); "" when it may.
// A condition under which a read without locks would not be correct
// belongs here: the store then reads with locks, and says so first.
func (s *Store) lockFreeBlocked() string {
	if s.knobs.lockFreeOff {
		return "its reads without locks are turned off"
	}
	if _, err := os.Lstat(s.target.Path + "-wal"); !errors.Is(err, os.ErrNotExist) {
		return "a -wal file is beside it (it is being switched to WAL mode), and a read without locks is not correct then"
	}
	l := s.conn.lockFree()
	if l == nil {
		return "a connection that reads it without locks could not be opened"
	}
	if !l.armed() {
		return "kvdeck reads without them only a file it can watch for writes, and here " + l.blind
	}
	return ""
}

// lockedReadWhy says why a read of a rollback-journal file takes locks.
func (s *Store) lockedReadWhy() string {
	if why := s.lockFreeBlocked(); why != "" {
		return why
	}
	return "it was being written during every read kvdeck tried without them (a long transaction, or commits without a pause)"
}
