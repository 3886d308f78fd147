package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"kvdeck/internal/sqldtest"
)

// groupAPI answers the Turso Platform API's documented shapes for
// discovery (no test can reach the real one): GET
// /v1/organizations/acme/databases[?group=G] and POST
// /v1/organizations/acme/groups/G/auth/tokens. Its databases are served
// by a real sqld with JWT auth, whose tokens it mints (read-only or
// full, as asked); it records the tokens asked for.
type groupAPI struct {
	t     *testing.T
	token string // the Platform API token it accepts
	db    *sqldtest.Server

	mu     sync.Mutex
	minted []string // "GROUP ACCESS EXPIRATION"
}

func (p *groupAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer "+p.token {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"could not parse jwt"}`))
		return
	}
	host := strings.TrimPrefix(p.db.URL, "http://")
	const org = "/v1/organizations/acme"
	switch {
	case r.Method == http.MethodGet && r.URL.Path == org+"/databases":
		all := []map[string]any{
			{"Name": "tenant-a", "DbId": "1", "Hostname": host, "group": "eu", "primaryRegion": "fra", "block_reads": false, "block_writes": false},
			{"Name": "tenant-b", "DbId": "2", "Hostname": host, "group": "eu", "primaryRegion": "fra", "block_reads": false, "block_writes": true},
			{"Name": "ops", "DbId": "3", "Hostname": host, "group": "us", "primaryRegion": "iad"},
		}
		out := []map[string]any{}
		for _, d := range all {
			if g := r.URL.Query().Get("group"); g == "" || d["group"] == g {
				out = append(out, d)
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"databases": out})
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, org+"/groups/") && strings.HasSuffix(r.URL.Path, "/auth/tokens"):
		group := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, org+"/groups/"), "/auth/tokens")
		access := r.URL.Query().Get("authorization")
		p.mu.Lock()
		p.minted = append(p.minted, group+" "+access+" "+r.URL.Query().Get("expiration"))
		p.mu.Unlock()
		jwt := p.db.ReadOnlyToken(p.t)
		if access == "full-access" {
			jwt = p.db.Token(p.t)
		}
		json.NewEncoder(w).Encode(map[string]string{"jwt": jwt})
	default:
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"not found"}`))
	}
}

func (p *groupAPI) mints() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.minted...)
}

// TestDiscoverTurso: kvdeck stores discover turso lists an
// organization's databases (a group's with --group) and saves the ones
// --save names, with where the API token comes from and never the
// token; such a store opens with a group token minted for the command,
// read-only, and a write token only when it is opened to write; a
// database whose writes are blocked shows so in the fleet.
func TestDiscoverTurso(t *testing.T) {
	const apiToken = "turso-api-t0ken-do-not-save"
	db := sqldtest.Start(t, sqldtest.WithJWT())
	api := &groupAPI{t: t, token: apiToken, db: db}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	env := storesEnv(t)
	env["TURSO_API"] = apiToken
	run := func(args ...string) result {
		t.Helper()
		return runMain(t, env, "", args)
	}
	discover := []string{"stores", "discover", "turso", "--org", "acme", "--token-env", "TURSO_API", "--api", srv.URL}
	if r := run("--db", db.URL, "--auth-token", db.Token(t), "set", `["seed"]`, "0"); r.code != 0 {
		t.Fatalf("seed: %+v", r)
	}

	r := run(discover...)
	if r.code != 0 || !strings.Contains(r.stdout, "tenant-a") || !strings.Contains(r.stdout, "ops") || !strings.Contains(r.stdout, "writes") {
		t.Fatalf("discover: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(env["XDG_CONFIG_HOME"], "kvdeck", "config.toml")); err == nil {
		t.Error("a listing wrote the config")
	}
	r = run(append(discover, "--group", "eu", "--save", "tenant-a,tenant-b", "-o", "json")...)
	if r.code != 0 || strings.Count(r.stdout, "\n") != 2 || !strings.Contains(r.stdout, `"store":"tenant-a"`) {
		t.Fatalf("discover --save: %+v", r)
	}
	if r := run(append(discover, "--save", "nope")...); r.code == 0 || !strings.Contains(r.stderr, "no such database") {
		t.Errorf("--save of an unknown database: %+v", r)
	}
	conf, err := os.ReadFile(filepath.Join(env["XDG_CONFIG_HOME"], "kvdeck", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(conf), apiToken) || !strings.Contains(string(conf), `turso_api_token_env = "TURSO_API"`) || !strings.Contains(string(conf), `turso_group = "eu"`) {
		t.Errorf("the saved config:\n%s", conf)
	}
	if show := run("stores", "show", "tenant-a"); !strings.Contains(show.stdout, "minted (Turso group eu)") {
		t.Errorf("stores show: %+v", show)
	}

	// Opened to read: one read-only group token for the command.
	if r := run("--store", "tenant-a", "list"); r.code != 0 {
		t.Fatalf("list with a minted token: %+v", r)
	}
	if m := api.mints(); len(m) != 1 || m[0] != "eu read-only 480m" {
		t.Errorf("tokens minted for a read: %v", m)
	}
	// Saved read-only: a write is refused before any token is minted;
	// opened to write, a full-access token is minted.
	if r := run("--store", "tenant-a", "set", `["k"]`, "1"); r.code == 0 {
		t.Errorf("a write to a store saved read-only: %+v", r)
	}
	if r := run("--store", "tenant-a", "--write", "set", `["k"]`, "1"); r.code != 0 {
		t.Fatalf("set --write: %+v", r)
	}
	if m := api.mints(); len(m) != 2 || m[1] != "eu full-access 480m" {
		t.Errorf("tokens minted for a write: %v", m)
	}
	if r := run("--store", "tenant-a", "get", `["k"]`); r.code != 0 || !strings.Contains(r.stdout, "1") {
		t.Errorf("get: %+v", r)
	}

	rows := statusRows(t, run("fleet", "-o", "json").stdout)
	if rows["tenant-b"].Blocked != "writes" || rows["tenant-a"].Blocked != "" || rows["tenant-a"].Status != "ok" {
		t.Errorf("fleet: %+v", rows)
	}
	for _, out := range []string{run("fleet").stdout, run("stores", "list").stdout} {
		if strings.Contains(out, apiToken) {
			t.Errorf("the API token shows: %s", out)
		}
	}
	// Without the API token the store cannot mint, and says why.
	delete(env, "TURSO_API")
	if r := run("--store", "tenant-a", "list"); r.code == 0 || !strings.Contains(r.stderr, "TURSO_API") {
		t.Errorf("list without the API token: %+v", r)
	}
}
