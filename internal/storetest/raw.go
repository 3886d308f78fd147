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
		conn = target.SQLiteDSN(false, false, store.DefaultBusyTimeout)
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
