package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"kvdeck/codec"
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
		s := openRollbackAt(t, 1000)
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

// TestSweepSyncsItsLastCommit: on a WAL file a sweep's delete commits go
// unsynced but its last, which syncs, also when the store's last windows
// hold no expired row (the commit is held back until the sweep knows
// none follows); journaled or not, by windows of rowids and of keys. On
// a rollback-journal file every commit syncs.
func TestSweepSyncsItsLastCommit(t *testing.T) {
	ctx := context.Background()
	const now = 1_000_000
	for _, rollback := range []bool{false, true} {
		for _, journaled := range []bool{false, true} {
			for _, prefix := range []codec.Key{nil, {codec.String("a")}} {
				name := fmt.Sprintf("rollback=%v/journaled=%v/prefix=%v", rollback, journaled, prefix != nil)
				t.Run(name, func(t *testing.T) {
					open := openFileAt
					if rollback {
						open = openRollbackAt
					}
					s := open(t, now)
					past := int64(now - 1)
					var sets []Mutation
					for i := range 3500 {
						sets = append(sets, Mutation{Type: MutationSet, Key: codec.Key{codec.String("a"), codec.Number(float64(i))}, Value: []byte(`1`), ExpiresAt: &past})
					}
					for i := range 2000 { // live rows after them: windows with nothing to delete
						sets = append(sets, Mutation{Type: MutationSet, Key: codec.Key{codec.String("z"), codec.Number(float64(i))}, Value: []byte(`1`)})
					}
					if _, err := s.SetMany(ctx, sets); err != nil {
						t.Fatal(err)
					}
					if journaled {
						s.SetRecorder(nopRecorder{})
					}
					s.knobs.expiredWindow = 1500
					var synced []bool
					s.knobs.deleteSynced = func(b bool) { synced = append(synced, b) }
					res, err := s.Sweep(ctx, SweepOptions{Prefix: prefix, Pause: -1})
					if err != nil || res.Swept != 3500 {
						t.Fatalf("sweep: %+v %v", res, err)
					}
					n := len(synced)
					if n < 4 || n != int(res.Batches) {
						t.Fatalf("%d commits told, %d made", n, res.Batches)
					}
					for i, b := range synced {
						if want := rollback || i == n-1; b != want {
							t.Fatalf("commit %d of %d synced: %v; want %v (%v)", i+1, n, b, want, synced)
						}
					}
				})
			}
		}
	}
}

// nopRecorder records nothing and accepts every write.
type nopRecorder struct{}

func (nopRecorder) Before(context.Context, PendingWrite) (string, error) { return "w", nil }
func (nopRecorder) After(context.Context, string, WriteResult)           {}

// openRollbackAt opens a new file store in rollback-journal mode whose
// clock stands at now, closed when the test ends.
func openRollbackAt(t *testing.T, now int64) *Store {
	t.Helper()
	first := openFileAt(t, now) // creates the store's tables
	path := first.target.Path
	first.Close()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err == nil {
		_, err = raw.Exec("PRAGMA journal_mode=DELETE")
		raw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), "file:"+path, Options{Clock: func() int64 { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
