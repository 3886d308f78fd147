package store

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

// TestWritesSynchronousFull: a writable file store, WAL or not, commits
// with synchronous=FULL (2), as SQLite's default makes the service's:
// a write kvdeck reports survives a power loss. Before, a WAL file got
// NORMAL (1).
func TestWritesSynchronousFull(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{"wal", "delete"} {
		t.Run(mode, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.db")
			s, err := Open(ctx, "file:"+path, Options{Create: true})
			if err != nil {
				t.Fatal(err)
			}
			if mode == "delete" {
				s.Close()
				raw, err := sql.Open("sqlite", "file:"+path)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := raw.Exec("PRAGMA journal_mode=DELETE"); err != nil {
					t.Fatal(err)
				}
				raw.Close()
				if s, err = Open(ctx, "file:"+path, Options{}); err != nil {
					t.Fatal(err)
				}
			}
			defer s.Close()
			var jm string
			if _, err := s.queryRow(ctx, "PRAGMA journal_mode", nil, &jm); err != nil || jm != mode {
				t.Fatalf("journal_mode %q %v; want %s", jm, err, mode)
			}
			var sync int64
			if _, err := s.queryRow(ctx, "PRAGMA synchronous", nil, &sync); err != nil || sync != 2 {
				t.Fatalf("synchronous %d %v; want 2 (FULL)", sync, err)
			}
		})
	}
}
