package platform_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/platform"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestSqldNamespaces: against a real sqld with namespaces on, a
// namespace is created, written, forked (the fork holds the rows as they
// were when it was made, and not what came after), its stats and config
// read, and deleted; a namespace that does not exist is ErrNotFound.
func TestSqldNamespaces(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithNamespaces())
	ctx := storetest.Ctx(t)
	a := platform.Sqld{Admin: srv.AdminURL}
	if err := a.CreateNamespace(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	s := storetest.Open(t, srv.URL+"?namespace=t1", store.Options{})
	if _, err := s.Set(ctx, storetest.Key(t, `["a"]`), []byte(`1`), nil); err != nil {
		t.Fatal(err)
	}
	if err := a.Fork(ctx, "t1", "t1-fork"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set(ctx, storetest.Key(t, `["b"]`), []byte(`2`), nil); err != nil {
		t.Fatal(err)
	}
	fork := storetest.Open(t, srv.URL+"?namespace=t1-fork", store.Options{ReadOnly: true})
	if _, found, err := fork.Get(ctx, storetest.Key(t, `["a"]`)); err != nil || !found {
		t.Errorf("the fork lacks the row written before it: %v %v", found, err)
	}
	if _, found, err := fork.Get(ctx, storetest.Key(t, `["b"]`)); err != nil || found {
		t.Errorf("the fork has the row written after it: %v %v", found, err)
	}
	st, err := a.Stats(ctx, "t1")
	if err != nil {
		t.Fatal(err)
	}
	if st.RowsWritten == 0 || st.RowsRead == 0 || st.ReplicationIndex == 0 || len(st.TopQueries) == 0 { // (storage_bytes_used is refreshed later)
		t.Errorf("stats %+v", st)
	}
	c, err := a.Config(ctx, "t1")
	if err != nil || c.BlockReads || c.BlockWrites {
		t.Errorf("config %+v %v", c, err)
	}
	if err := a.DeleteNamespace(ctx, "t1-fork"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Stats(ctx, "t1-fork"); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("stats of a deleted namespace: %v, want ErrNotFound", err)
	}
	if err := a.CreateNamespace(ctx, "../x"); !errors.Is(err, store.ErrBadURL) {
		t.Errorf("a namespace that changes the path: %v", err)
	}
	if err := (platform.Sqld{Admin: "ftp://h"}).CreateNamespace(ctx, "x"); !errors.Is(err, store.ErrBadURL) {
		t.Errorf("an admin URL that is not http(s): %v", err)
	}
}

// tursoAPI answers the Turso Platform API's documented shapes for the
// calls platform.Turso makes (no test can reach the real one).
func tursoAPI(t *testing.T, token string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":"could not parse jwt ` + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + `"}`))
			return
		}
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/organizations/acme/databases":
			all := []map[string]any{
				{"Name": "tenant-a", "DbId": "1", "Hostname": "tenant-a-acme.turso.io", "group": "eu", "primaryRegion": "fra", "block_reads": false, "block_writes": false},
				{"Name": "tenant-b", "DbId": "2", "Hostname": "tenant-b-acme.turso.io", "group": "eu", "primaryRegion": "fra", "block_reads": false, "block_writes": true},
				{"Name": "ops", "DbId": "3", "Hostname": "ops-acme.turso.io", "group": "us", "primaryRegion": "iad"},
			}
			var out []map[string]any
			for _, d := range all {
				if g := r.URL.Query().Get("group"); g == "" || d["group"] == g {
					out = append(out, d)
				}
			}
			json.NewEncoder(w).Encode(map[string]any{"databases": out})
		case r.Method == http.MethodPost && r.URL.Path == "/v1/organizations/acme/groups/eu/auth/tokens":
			json.NewEncoder(w).Encode(map[string]string{"jwt": "jwt-" + r.URL.Query().Get("authorization") + "-" + r.URL.Query().Get("expiration")})
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"error":"not found"}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestTursoDatabasesAndGroupTokens: the databases of an organization,
// all or one group's, with their flags; a group token read-only unless
// asked to write, with its expiry in minutes; a refused token never
// shows in the error.
func TestTursoDatabasesAndGroupTokens(t *testing.T) {
	const token = "api-t0ken-secret"
	api := tursoAPI(t, token)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tu := platform.Turso{API: api.URL, Org: "acme", Token: token}
	all, err := tu.Databases(ctx, "")
	if err != nil || len(all) != 3 {
		t.Fatalf("databases: %v %v", all, err)
	}
	eu, err := tu.Databases(ctx, "eu")
	if err != nil || len(eu) != 2 || !eu[1].BlockWrites || eu[1].BlockReads || eu[0].Hostname != "tenant-a-acme.turso.io" || eu[0].Region != "fra" {
		t.Fatalf("group eu: %+v %v", eu, err)
	}
	if got := tu.URL(eu[0]); got != "http://tenant-a-acme.turso.io" {
		t.Errorf("URL on a plain-http API: %s", got)
	}
	if got := (platform.Turso{}).URL(eu[0]); got != "libsql://tenant-a-acme.turso.io" {
		t.Errorf("URL: %s", got)
	}
	ro, err := tu.GroupToken(ctx, "eu", time.Hour, false)
	if err != nil || ro != "jwt-read-only-60m" {
		t.Errorf("read-only token: %q %v", ro, err)
	}
	rw, err := tu.GroupToken(ctx, "eu", 90*time.Second, true)
	if err != nil || rw != "jwt-full-access-1m" {
		t.Errorf("write token: %q %v", rw, err)
	}
	if _, err := tu.GroupToken(ctx, "us", time.Hour, false); !errors.Is(err, platform.ErrNotFound) {
		t.Errorf("a group the API does not know: %v", err)
	}
	bad := platform.Turso{API: api.URL, Org: "acme", Token: "wrong-secret-token"}
	_, err = bad.Databases(ctx, "")
	if err == nil || strings.Contains(err.Error(), "wrong-secret-token") || !strings.Contains(err.Error(), "401") {
		t.Errorf("a refused token: %v", err)
	}
}
