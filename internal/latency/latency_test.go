package latency_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/tursodatabase/libsql-client-go/libsql"

	"kvdeck/internal/deptest"
	"kvdeck/internal/latency"
	"kvdeck/internal/sqldtest"
)

func open(t *testing.T, url string) *sql.DB {
	t.Helper()
	conn, err := libsql.NewConnector(url)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

// TestCountsAndDelays: over HTTP each statement outside a transaction is
// one request, over WebSocket one or more messages; every request waits the
// delay, so n statements take at least n delays.
func TestCountsAndDelays(t *testing.T) {
	srv := sqldtest.Start(t)
	const delay = 20 * time.Millisecond
	p := sqldtest.StartProxy(t, srv.URL, delay)
	for _, tc := range []struct{ name, url string }{{"http", p.URL}, {"ws", p.WSURL}} {
		t.Run(tc.name, func(t *testing.T) {
			db := open(t, tc.url)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var n int
			if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&n); err != nil || n != 1 {
				t.Fatalf("through the proxy: %v (got %d)", err, n)
			}
			began := time.Now()
			got := p.Count(func() {
				for i := 0; i < 3; i++ {
					if err := db.QueryRowContext(ctx, "SELECT ?", i).Scan(&n); err != nil || n != i {
						t.Fatalf("query %d: %v (got %d)", i, err, n)
					}
				}
			})
			if took := time.Since(began); took < 3*delay {
				t.Errorf("3 queries took %v, less than 3 delays of %v", took, delay)
			}
			if tc.name == "http" && got != 3 {
				t.Errorf("3 queries over HTTP sent %d requests, want 3", got)
			}
			if tc.name == "ws" && got < 3 {
				t.Errorf("3 queries over WebSocket sent %d messages, want at least 3", got)
			}
		})
	}
}

func TestSetDelayAndTarget(t *testing.T) {
	for raw, want := range map[string]string{
		"http://h:8080":     "http://h:8080",
		"ws://h:8080/x?y=1": "http://h:8080",
		"libsql://db.turso": "https://db.turso",
		"wss://db.turso":    "https://db.turso",
		"https://db.turso/": "https://db.turso",
	} {
		u, err := latency.Target(raw)
		if err != nil || u.String() != want {
			t.Errorf("Target(%q) = %v, %v; want %s", raw, u, err, want)
		}
	}
	if _, err := latency.Target("file:x.db"); err == nil {
		t.Error("Target accepted a file URL")
	}
	p, err := latency.New("http://127.0.0.1:1", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	p.SetDelay(time.Millisecond)
	if p.Delay() != time.Millisecond {
		t.Errorf("Delay = %v after SetDelay(1ms)", p.Delay())
	}
}

func TestImportDirection(t *testing.T) {
	deptest.Forbid(t, "kvdeck/internal/latency", "kvdeck/store", "kvdeck/tui", "kvdeck/views", "kvdeck/internal/cli")
}
