package sqldtest_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/tursodatabase/libsql-client-go/libsql"

	"kvdeck/internal/sqldtest"
)

// openDB connects to the server at url; it is closed when the test ends.
func openDB(t *testing.T, url string, opts ...libsql.Option) *sql.DB {
	t.Helper()
	conn, err := libsql.NewConnector(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

func query1(t *testing.T, url string, opts ...libsql.Option) (int, error) {
	t.Helper()
	db := openDB(t, url, opts...)
	var n int
	err := db.QueryRowContext(context.Background(), "SELECT 1").Scan(&n)
	return n, err
}

func TestSmokeHTTPAndWebSocket(t *testing.T) {
	srv := sqldtest.Start(t)
	for _, url := range []string{srv.URL, srv.WSURL} {
		n, err := query1(t, url)
		if err != nil || n != 1 {
			t.Fatalf("%s: SELECT 1 = %d, %v\n%s", url, n, err, srv.Log())
		}
	}
}

func TestJWTAuth(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithJWT())
	if n, err := query1(t, srv.URL, libsql.WithAuthToken(srv.Token(t))); err != nil || n != 1 {
		t.Fatalf("with a valid token: %d, %v", n, err)
	}
	if _, err := query1(t, srv.URL); err == nil {
		t.Fatal("without a token the server answered")
	} else if !strings.Contains(err.Error(), "401") {
		t.Fatalf("without a token: want a 401, got %v", err)
	}
	other := sqldtest.Start(t, sqldtest.WithJWT())
	if _, err := query1(t, srv.URL, libsql.WithAuthToken(other.Token(t))); err == nil {
		t.Fatal("a token signed by another key was accepted")
	}
}

// TestRestartableKeepsAddressAndData: a Restartable stopped refuses
// connections; started again it answers on the same URL with the rows
// written before the stop.
func TestRestartableKeepsAddressAndData(t *testing.T) {
	srv := sqldtest.StartRestartable(t)
	url := srv.URL()
	if _, err := openDB(t, url).ExecContext(context.Background(), "CREATE TABLE t (x); INSERT INTO t VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	if _, err := query1(t, url); err == nil {
		t.Fatal("a stopped server answered")
	}
	srv.Stop() // a second Stop does nothing
	srv.Start()
	if srv.URL() != url {
		t.Fatalf("restarted on %s, was %s", srv.URL(), url)
	}
	var x int
	if err := openDB(t, url).QueryRowContext(context.Background(), "SELECT x FROM t").Scan(&x); err != nil || x != 42 {
		t.Fatalf("after the restart: %d, %v (want the row written before)", x, err)
	}
}
