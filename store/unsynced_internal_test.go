package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
)

// TestSweepDeletesUnsyncedOnWALOnly: a sweep's unsynced commit runs at
// synchronous=NORMAL on a WAL file and gives its connection back at FULL;
// on a rollback-journal file (where NORMAL risks the database at a power
// cut) it is refused before writing, and execDeletes commits synced.
func TestSweepDeletesUnsyncedOnWALOnly(t *testing.T) {
	ctx := context.Background()
	insert := stmt{sql: "INSERT INTO kv (k, v, ver, expires_at) VALUES (x'02616100', '1', 1, NULL)"}
	t.Run("wal", func(t *testing.T) {
		s := openFileAt(t, 1000)
		f := s.conn.(*fileConn)
		var level int64
		read := stmt{sql: "PRAGMA synchronous", read: func(rs resultRows) error {
			for rs.Next() {
				if err := rs.Scan(&level); err != nil {
					return err
				}
			}
			return rs.Err()
		}}
		if err := f.execUnsynced(ctx, []stmt{insert, read}); err != nil || level != 1 {
			t.Fatalf("synchronous %d (%v) in the unsynced commit; want 1 (NORMAL)", level, err)
		}
		wantRow(t, s, true)
		poolAtFull(t, f.db)
	})
	t.Run("rollback journal", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "d.db")
		s, err := Open(ctx, "file:"+path, Options{Create: true})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		raw, err := sql.Open("sqlite", "file:"+path)
		if err == nil {
			_, err = raw.Exec("PRAGMA journal_mode=DELETE")
			raw.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		if s, err = Open(ctx, "file:"+path, Options{}); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		f := s.conn.(*fileConn)
		if err := f.execUnsynced(ctx, []stmt{insert}); !errors.Is(err, errNotWAL) {
			t.Fatalf("execUnsynced on a rollback-journal file: %v; want errNotWAL", err)
		}
		wantRow(t, s, false)
		// The store believes it is WAL: the transaction's own check falls
		// back to a synced commit.
		s.watch.journal.Store(journalOther)
		if err := s.execDeletes(ctx, []stmt{insert}, false); err != nil {
			t.Fatal(err)
		}
		wantRow(t, s, true)
		poolAtFull(t, f.db)
	})
}

// wantRow checks whether the row the test inserts is there.
func wantRow(t *testing.T, s *Store, want bool) {
	t.Helper()
	var n int64
	if _, err := s.queryRow(context.Background(), "SELECT count(*) FROM kv WHERE k = x'02616100'", nil, &n); err != nil || (n == 1) != want {
		t.Fatalf("row there: %v (%v); want %v", n == 1, err, want)
	}
}

// poolAtFull checks that every connection of db the pool keeps is at
// synchronous=FULL (2), taking them all at once.
func poolAtFull(t *testing.T, db *sql.DB) {
	t.Helper()
	ctx := context.Background()
	var conns []*sql.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range db.Stats().OpenConnections + 1 {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var level int64
		if err := c.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&level); err != nil || level != 2 {
			t.Fatalf("a pool connection at synchronous %d (%v); want 2 (FULL)", level, err)
		}
	}
}
