package sqldtest_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/tursodatabase/libsql-client-go/libsql"

	"kvdeck/internal/sqldtest"
)

func query1(t *testing.T, url string, opts ...libsql.Option) (int, error) {
	t.Helper()
	conn, err := libsql.NewConnector(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var n int
	err = db.QueryRowContext(context.Background(), "SELECT 1").Scan(&n)
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
