package store_test

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

func TestBadValuesAndStampsWriteNothing(t *testing.T) {
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, _ *storetest.Clock) {
		mustSet(t, s, `["keep"]`, `1`, nil)
		cases := []struct {
			name string
			want error
			run  func() error
		}{
			{"invalid JSON value", store.ErrInvalidValue, func() error {
				_, err := s.Atomic().Set(storetest.Key(t, `["a"]`), []byte(`1`)).Set(storetest.Key(t, `["b"]`), []byte(`{"x":`)).Commit(storetest.Ctx(t))
				return err
			}},
			{"NaN key part", codec.ErrNaN, func() error {
				_, err := s.Set(storetest.Ctx(t), codec.Key{codec.Number(math.NaN())}, []byte(`1`), nil)
				return err
			}},
			{"invalid UTF-8 key part", codec.ErrInvalidUTF8, func() error {
				_, err := s.Set(storetest.Ctx(t), codec.Key{codec.String("\xff")}, []byte(`1`), nil)
				return err
			}},
			{"malformed versionstamp", store.ErrInvalidArgument, func() error {
				_, err := s.Atomic().Check(storetest.Key(t, `["keep"]`), "42").Set(storetest.Key(t, `["a"]`), []byte(`1`)).Commit(storetest.Ctx(t))
				return err
			}},
			{"unknown mutation type", store.ErrInvalidArgument, func() error {
				_, err := s.Commit(storetest.Ctx(t), nil, []store.Mutation{{Type: "upsert", Key: storetest.Key(t, `["a"]`)}})
				return err
			}},
		}
		for _, c := range cases {
			err := c.run()
			if !errors.Is(err, c.want) {
				t.Errorf("%s: got %v, want %v", c.name, err, c.want)
			}
		}
		if st, err := s.Stats(storetest.Ctx(t), storetest.T0); err != nil || st.Rows != 1 || st.Seq != 1 {
			t.Fatalf("bad input wrote something: %+v %v", st, err)
		}
	})
	for _, text := range []string{`["a", NaN]`, `["a", 9223372036854775808n]`, `["a"`, `[b"0"]`} {
		if _, err := codec.Parse(text); err == nil {
			t.Errorf("codec.Parse(%s) accepted bad key text", text)
		}
	}
}

func TestBadURLs(t *testing.T) {
	for _, c := range []struct {
		url  string
		want error
	}{
		{"", store.ErrBadURL},
		{"postgres://localhost/x", store.ErrBadURL},
		{"file://relative.db", store.ErrBadURL},
		{"http://", store.ErrBadURL},
		{"libsql://db.example.test?authToken=secret123", store.ErrTokenInURL},
		{"https://user:secret123@db.example.test", store.ErrTokenInURL},
		{"http://127.0.0.1:1?foo=bar", store.ErrBadURL},
	} {
		_, err := store.Open(context.Background(), c.url, store.Options{})
		if !errors.Is(err, c.want) {
			t.Errorf("Open(%q) = %v, want %v", c.url, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret123") {
			t.Errorf("Open(%q): the error shows the secret: %v", c.url, err)
		}
	}
}

func TestUnreachableAndDroppedServer(t *testing.T) {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := store.Open(c, "http://127.0.0.1:1", store.Options{})
	if !errors.Is(err, store.ErrUnreachable) {
		t.Fatalf("closed port: %v", err)
	}
	srv := sqldtest.Start(t)
	s := storetest.Open(t, srv.URL, store.Options{})
	mustSet(t, s, `["a"]`, `1`, nil)
	srv.Stop()
	if _, err := s.Set(storetest.Ctx(t), storetest.Key(t, `["a"]`), []byte(`2`), nil); !errors.Is(err, store.ErrUnreachable) {
		t.Fatalf("set after the server stopped: %v", err)
	}
	if _, _, err := s.Get(storetest.Ctx(t), storetest.Key(t, `["a"]`)); !errors.Is(err, store.ErrUnreachable) {
		t.Fatalf("get after the server stopped: %v", err)
	}
}

func TestAuthTokens(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithJWT())
	good := srv.Token(t)
	s := storetest.Open(t, srv.URL, store.Options{AuthToken: good})
	mustSet(t, s, `["a"]`, `1`, nil)
	other := sqldtest.Start(t, sqldtest.WithJWT())
	for name, token := range map[string]string{"missing": "", "wrong": other.Token(t), "garbage": "not-a-jwt"} {
		for _, u := range []string{srv.URL, srv.WSURL} {
			_, err := store.Open(storetest.Ctx(t), u, store.Options{AuthToken: token})
			if !errors.Is(err, store.ErrUnauthorized) {
				t.Errorf("%s token over %s: %v", name, u, err)
			}
			if token != "" && err != nil && strings.Contains(err.Error(), token) {
				t.Errorf("%s token: the error shows the token", name)
			}
		}
	}
}

func TestNotAStore(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not sqlite ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.db")
	storetest.Exec(t, other, "CREATE TABLE users (id INTEGER PRIMARY KEY)")
	wrongShape := filepath.Join(dir, "wrong.db")
	storetest.Exec(t, wrongShape, "CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT)")
	for _, c := range []struct {
		path     string
		readOnly bool
	}{
		{garbage, false}, {garbage, true}, {other, true}, {wrongShape, false}, {filepath.Join(dir, "missing.db"), true},
		// Without Options.Create nothing is created: not a store beside
		// another application's tables, not a file at a missing path.
		{other, false}, {filepath.Join(dir, "missing.db"), false},
	} {
		before, _ := os.ReadFile(c.path)
		_, err := store.Open(storetest.Ctx(t), c.path, store.Options{ReadOnly: c.readOnly})
		if !errors.Is(err, store.ErrNotStore) {
			t.Errorf("Open(%s, ro=%v) = %v, want ErrNotStore", filepath.Base(c.path), c.readOnly, err)
		}
		after, _ := os.ReadFile(c.path)
		if string(before) != string(after) {
			t.Errorf("Open(%s) changed the file", filepath.Base(c.path))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open(missing.db) left a file behind: %v", err)
	}
	// Create alone does not add a store to another application's tables.
	before, _ := os.ReadFile(other)
	if _, err := store.Open(storetest.Ctx(t), other, store.Options{Create: true}); !errors.Is(err, store.ErrNotStore) || !strings.Contains(err.Error(), "has tables users") {
		t.Errorf("Open(other.db, Create) = %v, want ErrNotStore naming the table users", err)
	}
	if after, _ := os.ReadFile(other); string(before) != string(after) {
		t.Errorf("Open(other.db, Create) changed the file")
	}
	// Create and Force do.
	s, err := store.Open(storetest.Ctx(t), other, store.Options{Create: true, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Created() {
		t.Errorf("Created() = false after adding the store to other.db")
	}
	mustSet(t, s, `["a"]`, `1`, nil)
}

// TestCreateOnlyWhenAsked: a missing or empty file, or a database without
// tables, becomes a store only with Options.Create; opening a store again
// creates nothing.
func TestCreateOnlyWhenAsked(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	noTables := filepath.Join(dir, "notables.db")
	storetest.Exec(t, noTables, "CREATE TABLE x (a)", "DROP TABLE x")
	for _, path := range []string{filepath.Join(dir, "missing.db"), empty, noTables} {
		before, statErr := os.ReadFile(path)
		if _, err := store.Open(storetest.Ctx(t), path, store.Options{}); !errors.Is(err, store.ErrNotStore) || !strings.Contains(err.Error(), "kvdeck init") {
			t.Errorf("Open(%s) = %v, want ErrNotStore suggesting kvdeck init", filepath.Base(path), err)
		}
		after, afterErr := os.ReadFile(path)
		if string(before) != string(after) || (statErr == nil) != (afterErr == nil) {
			t.Errorf("Open(%s) changed the file system", filepath.Base(path))
		}
		s, err := store.Open(storetest.Ctx(t), path, store.Options{Create: true})
		if err != nil {
			t.Fatalf("Open(%s, Create): %v", filepath.Base(path), err)
		}
		if !s.Created() {
			t.Errorf("Open(%s, Create).Created() = false", filepath.Base(path))
		}
		s.Close()
		s, err = store.Open(storetest.Ctx(t), path, store.Options{})
		if err != nil {
			t.Fatalf("reopen %s: %v", filepath.Base(path), err)
		}
		if s.Created() {
			t.Errorf("reopen %s: Created() = true", filepath.Base(path))
		}
		s.Close()
	}
}

func TestLockedDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kv.db")
	s := storetest.Open(t, path, store.Options{BusyTimeout: 200 * time.Millisecond})
	mustSet(t, s, `["a"]`, `1`, nil)
	holder, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, err := holder.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Set(storetest.Ctx(t), storetest.Key(t, `["b"]`), []byte(`2`), nil)
	if !errors.Is(err, store.ErrLocked) {
		t.Fatalf("set while another connection holds the write lock: %v", err)
	}
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := s.Get(storetest.Ctx(t), storetest.Key(t, `["b"]`)); found {
		t.Fatal("the refused set was written")
	}
	mustSet(t, s, `["b"]`, `2`, nil)
}

func TestReadOnlyWritesNothing(t *testing.T) {
	path := storetest.CopyReference(t)
	before := fileHash(t, path)
	s := storetest.Open(t, path, store.Options{ReadOnly: true})
	for name, op := range map[string]func() error{
		"set": func() error {
			_, err := s.Set(storetest.Ctx(t), storetest.Key(t, `["a"]`), []byte(`1`), nil)
			return err
		},
		"delete": func() error { return s.Delete(storetest.Ctx(t), storetest.Key(t, `["accounts", "acme"]`)) },
		"commit": func() error {
			_, err := s.Atomic().Delete(storetest.Key(t, `["accounts", "acme"]`)).Commit(storetest.Ctx(t))
			return err
		},
		"sweep": func() error {
			_, err := s.Sweep(storetest.Ctx(t), store.SweepOptions{Now: storetest.T0 + 1e9})
			return err
		},
	} {
		if err := op(); !errors.Is(err, store.ErrReadOnly) {
			t.Errorf("%s on a read-only store: %v", name, err)
		}
	}
	if res, err := s.Sweep(storetest.Ctx(t), store.SweepOptions{Now: storetest.T0 + 1e9, DryRun: true}); err != nil || res.Swept != 11 {
		t.Errorf("a dry-run sweep reads only: %+v %v", res, err)
	}
	s.Close()
	if after := fileHash(t, path); after != before {
		t.Fatal("a read-only store changed the file")
	}
}

// TestReadOnlyTokenWrite: a write with a token that grants read access
// only is refused with ErrUnauthorized saying so, over HTTP and WebSocket;
// nothing is written and reads go on. Before the fix the WebSocket write
// was a commit of unknown outcome (sqld closes the connection; earlier
// still "unreachable ... is the server running"), and over HTTP the server
// "refused the auth token", although the token was valid.
func TestReadOnlyTokenWrite(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithJWT())
	mustSet(t, storetest.Open(t, srv.URL, store.Options{AuthToken: srv.Token(t)}), `["a"]`, `1`, nil)
	ro := srv.ReadOnlyToken(t)
	k := storetest.Key(t, `["a"]`)
	for _, u := range []string{srv.URL, srv.WSURL} {
		s := storetest.Open(t, u, store.Options{AuthToken: ro})
		_, err := s.Set(storetest.Ctx(t), k, []byte(`2`), nil)
		if !errors.Is(err, store.ErrUnauthorized) || errors.Is(err, store.ErrOutcomeUnknown) ||
			!strings.Contains(err.Error(), "read-only token") && !strings.Contains(err.Error(), "read access only") ||
			!strings.Contains(err.Error(), "nothing was written") || strings.Contains(err.Error(), ro) {
			t.Errorf("set with a read-only token over %s: %v", u, err)
		}
		if e, _, err := s.Get(storetest.Ctx(t), k); err != nil || string(e.Value) != "1" {
			t.Errorf("get over %s after the refused write: %s, %v", u, e.Value, err)
		}
	}
}
