package storetest

import (
	"context"
	"database/sql"
	"testing"

	"github.com/tursodatabase/libsql-client-go/libsql"

	"kvdeck/store"
)

// RawDB opens the database behind a store URL (an embedded file or a
// sqld over HTTP or WebSocket) without kvdeck's store on top, so that a
// test can write what a foreign writer would: rows kvdeck itself never
// writes, a table of another shape. It is closed when the test ends.
func RawDB(t testing.TB, url string) *sql.DB {
	t.Helper()
	target, err := store.ParseTarget(url)
	if err != nil {
		t.Fatal(err)
	}
	conn := target.URL
	if target.Transport == store.TransportFile {
		conn = target.SQLiteDSN(false, store.DefaultBusyTimeout)
	}
	connector, err := libsql.NewConnector(conn)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
	t.Cleanup(func() { db.Close() })
	return db
}

// Exec runs statements on the database behind url (RawDB), failing the
// test on the first error.
func Exec(t testing.TB, url string, stmts ...string) {
	t.Helper()
	db := RawDB(t, url)
	for _, q := range stmts {
		if _, err := db.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
}

// CopyReferenceRows writes the rows of public-reference.db into the store
// at url (schema created when missing) exactly as the reference wrote
// them: a reference-written coordination store on any backend.
func CopyReferenceRows(t testing.TB, url string) {
	t.Helper()
	ref, err := sql.Open("sqlite", "file:"+CopyReference(t)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	rows, err := ref.QueryContext(Ctx(t), "SELECT k, v, ver, expires_at FROM kv")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	db := RawDB(t, url)
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY, v TEXT NOT NULL, ver INTEGER NOT NULL, expires_at INTEGER)`,
		`CREATE TABLE IF NOT EXISTS kv_meta (id INTEGER PRIMARY KEY CHECK (id = 0), seq INTEGER NOT NULL, ok INTEGER NOT NULL)`,
		`INSERT OR IGNORE INTO kv_meta (id, seq, ok) VALUES (0, 1000, 0)`,
	} {
		if _, err := db.ExecContext(Ctx(t), q); err != nil {
			t.Fatal(err)
		}
	}
	for rows.Next() {
		var k []byte
		var v string
		var ver int64
		var exp sql.NullInt64
		if err := rows.Scan(&k, &v, &ver, &exp); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(Ctx(t), "INSERT INTO kv (k, v, ver, expires_at) VALUES (?, ?, ?, ?)", k, v, ver, exp); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
}
