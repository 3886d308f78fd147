package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// platformAPI answers the Turso Platform API's documented shapes (no
// test can reach the real one): retrieve a database, create one seeded
// from another at a timestamp, make a token for it, delete it. The
// databases it "creates" are served by a real sqld (branch); it records
// what it was asked.
type platformAPI struct {
	t      *testing.T
	token  string // the Platform API token it accepts
	branch *sqldtest.Server
	fail   string // "token": answer token requests 500

	mu      sync.Mutex
	created []map[string]any
	deleted []string
	auth    []string
}

func (p *platformAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.auth = append(p.auth, r.Header.Get("Authorization"))
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+p.token {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"could not parse jwt"}`))
		return
	}
	const dbs = "/v1/organizations/acme/databases"
	host := strings.TrimPrefix(p.branch.URL, "http://")
	switch {
	case r.Method == http.MethodGet && r.URL.Path == dbs+"/prod":
		w.Write([]byte(`{"database":{"Name":"prod","DbId":"0eb771dd","Hostname":"prod-acme.turso.io","group":"eu","is_schema":false}}`))
	case r.Method == http.MethodPost && r.URL.Path == dbs:
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		p.created = append(p.created, body)
		p.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]any{"database": map[string]any{"DbId": "1f2e", "Hostname": host, "Name": body["name"]}})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/auth/tokens"):
		if p.fail == "token" {
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"error":"token service down"}`))
			return
		}
		if r.URL.Query().Get("authorization") != "read-only" {
			p.t.Errorf("a token asked with authorization %q", r.URL.Query().Get("authorization"))
		}
		json.NewEncoder(w).Encode(map[string]string{"jwt": p.branch.ReadOnlyToken(p.t)})
	case r.Method == http.MethodDelete && strings.HasPrefix(r.URL.Path, dbs+"/"):
		name := strings.TrimPrefix(r.URL.Path, dbs+"/")
		p.mu.Lock()
		p.deleted = append(p.deleted, name)
		p.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]string{"database": name})
	default:
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"not found"}`))
	}
}

// TestAtTursoBranch: a saved Turso store opened --at TIME is read from a
// branch made from the timestamp (seed {type: database, name, timestamp}
// in the source's group), with a read-only token made for the branch,
// and the branch is deleted when the command ends, also when making its
// token failed. The Platform API token goes to the API only.
func TestAtTursoBranch(t *testing.T) {
	branch := sqldtest.Start(t, sqldtest.WithJWT())
	s := storetest.Open(t, branch.URL, store.Options{AuthToken: branch.Token(t), Create: true})
	if _, err := s.Set(storetest.Ctx(t), storetest.Key(t, `["lease"]`), []byte(`{"holder":"then"}`), nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	api := &platformAPI{t: t, token: "platform-secret-1", branch: branch}
	srv := httptest.NewServer(api)
	defer srv.Close()
	env := storesEnv(t)
	env["TURSO_API_TOKEN"] = api.token
	configFile(t, env, `[stores.prod]
url = "libsql://prod-acme.turso.io"
turso_org = "acme"
turso_database = "prod"
turso_api_token_env = "TURSO_API_TOKEN"
turso_api = "`+srv.URL+`"
`, 0o600)
	at := "2026-01-01T23:00:00Z"
	r := runMain(t, env, "", []string{"--store", "prod", "--now", "2026-01-02T00:00:00Z", "--at", at, "get", `["lease"]`})
	if r.code != 0 || !strings.Contains(r.stdout, `{"holder":"then"}`) {
		t.Fatalf("--at on Turso: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "Turso point-in-time branch of acme/prod") {
		t.Fatalf("the source is not named: %s", r.stderr)
	}
	api.mu.Lock()
	created, deleted, auth := api.created, api.deleted, api.auth
	api.mu.Unlock()
	if len(created) != 1 {
		t.Fatalf("created %v", created)
	}
	seed, _ := created[0]["seed"].(map[string]any)
	name, _ := created[0]["name"].(string)
	if seed["type"] != "database" || seed["name"] != "prod" || seed["timestamp"] != at || created[0]["group"] != "eu" || !strings.HasPrefix(name, "prod-at-1767308400-") {
		t.Fatalf("the branch asked: %v", created[0])
	}
	if len(deleted) != 1 || deleted[0] != name {
		t.Fatalf("deleted %v, want the branch %s", deleted, name)
	}
	for _, a := range auth {
		if a != "Bearer "+api.token {
			t.Fatalf("the API got Authorization %q", a)
		}
	}

	// A branch whose token cannot be had is deleted all the same.
	api.fail = "token"
	r = runMain(t, env, "", []string{"--store", "prod", "--now", "2026-01-02T00:00:00Z", "--at", at, "get", `["lease"]`})
	api.mu.Lock()
	deleted = api.deleted
	api.mu.Unlock()
	if r.code == 0 || !strings.Contains(r.stderr, "token service down") || len(deleted) != 2 || strings.Contains(r.stderr, api.token) {
		t.Fatalf("a failed token: %d %s, deleted %v", r.code, r.stderr, deleted)
	}

	// Without the Platform API token in the environment: said, nothing asked.
	delete(env, "TURSO_API_TOKEN")
	r = runMain(t, env, "", []string{"--store", "prod", "--now", "2026-01-02T00:00:00Z", "--at", at, "get", `["lease"]`})
	if r.code == 0 || !strings.Contains(r.stderr, "$TURSO_API_TOKEN") {
		t.Fatalf("no API token: %d %s", r.code, r.stderr)
	}
}
