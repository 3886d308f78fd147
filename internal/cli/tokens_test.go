package cli

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
)

// headerLog is a listener that records the Authorization header of every
// request and answers like a broken server.
type headerLog struct {
	mu      sync.Mutex
	seen    []string
	srv     *httptest.Server
	request int
}

func newHeaderLog(t *testing.T) *headerLog {
	t.Helper()
	h := &headerLog{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		h.request++
		h.seen = append(h.seen, r.Header.Get("Authorization"))
		h.mu.Unlock()
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *headerLog) log() (requests int, auth []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, a := range h.seen {
		if a != "" {
			auth = append(auth, a)
		}
	}
	return h.request, auth
}

// TestTUIOpenSendsTheTokenOnlyToItsServer: a TUI session started on a sqld
// with --auth-token opens, through the :open function the CLI hands the
// TUI, a listener on 127.0.0.1: the listener gets requests but never the
// Authorization header (before the fix it received the
// session's bearer token). The same server under another scheme still
// gets the token; a token given with :open URL --auth-token goes to its
// server from then on, and to nothing else.
func TestTUIOpenSendsTheTokenOnlyToItsServer(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithJWT())
	token := srv.Token(t)
	evil, other := newHeaderLog(t), newHeaderLog(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	runner := func(_ context.Context, s *store.Store, cfg tuiconfig.Config) error {
		// :open of a stranger: no token
		if _, err := cfg.Open(ctx, evil.srv.URL); err == nil {
			t.Error(":open of the listener succeeded")
		} else if strings.Contains(err.Error(), token) {
			t.Errorf(":open error shows the token: %v", err)
		}
		// the session's server under the other scheme keeps it
		ws, err := cfg.Open(ctx, srv.WSURL)
		if err != nil {
			t.Errorf(":open of the same server over WebSocket: %v", err)
		} else if _, _, err := ws.Get(ctx, storetest.Key(t, `["k"]`)); err != nil {
			t.Errorf("get over WebSocket with the scoped token: %v", err)
		}
		// a token given for another server goes there, and only there
		if _, err := cfg.OpenWithToken(ctx, other.srv.URL, "given-for-other"); err == nil {
			t.Error(":open --auth-token of the broken listener succeeded")
		}
		if _, err := cfg.Open(ctx, evil.srv.URL+"/x"); err == nil {
			t.Error("second :open of the listener succeeded")
		}
		return nil
	}
	r := runMain(t, nil, "", []string{"--db", srv.URL, "--auth-token", token, "tui"}, WithTUI(runner))
	if r.code != 0 {
		t.Fatalf("tui: exit %d: %s", r.code, r.stderr)
	}
	if n, auth := evil.log(); n == 0 || len(auth) > 0 {
		t.Errorf("the listener got %d requests, with Authorization %q; want some, with none", n, auth)
	}
	if _, auth := other.log(); len(auth) == 0 || auth[0] != "Bearer given-for-other" {
		t.Errorf("the server a token was given for got %q", auth)
	}
}

// TestDiffSendsEachTokenOnlyToItsServer: `diff A B` with two servers
// sends the global token to neither unless one is the --db server, and a
// side's own --a-auth-token / --b-auth-token goes to that side's server
// only (the global token reached a listener on another
// server). With one server in the comparison the global token goes there
// only when it is --db's.
func TestDiffSendsEachTokenOnlyToItsServer(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithJWT())
	token := srv.Token(t)
	evil, other := newHeaderLog(t), newHeaderLog(t)
	noAuth := func(h *headerLog, what string) {
		t.Helper()
		if n, auth := h.log(); n == 0 || len(auth) > 0 {
			t.Errorf("%s: the listener got %d requests, with Authorization %q; want some, with none", what, n, auth)
		}
	}

	if r := runMain(t, nil, "", []string{"--db", srv.URL, "--auth-token", token, "set", `["k"]`, `1`}); r.code != 0 {
		t.Fatalf("set: exit %d: %s", r.code, r.stderr)
	}
	r := runMain(t, nil, "", []string{"--auth-token", token, "diff", evil.srv.URL, srv.URL})
	if r.code != 2 || strings.Contains(r.stderr, token) {
		t.Errorf("diff stranger sqld: exit %d, stderr %q; want 2 without the token", r.code, r.stderr)
	}
	noAuth(evil, "two servers, no --db")

	r = runMain(t, nil, "", []string{"--db", srv.URL, "--auth-token", token, "diff", srv.URL, evil.srv.URL})
	if r.code != 2 || !strings.Contains(r.stderr, "B:") {
		t.Errorf("diff sqld stranger with --db sqld: exit %d, stderr %q; want 2 naming B", r.code, r.stderr)
	}
	noAuth(evil, "two servers, --db the other")

	// A side that fails ends the diff, so each listener is side A once.
	for _, c := range []struct {
		h    *headerLog
		args []string
		want string
	}{
		{evil, []string{"diff", "--a-auth-token", "for-a", "--b-auth-token", "for-b", evil.srv.URL, other.srv.URL}, "Bearer for-a"},
		{other, []string{"diff", "--a-auth-token", "for-a", "--b-auth-token", "for-b", other.srv.URL + "/b", srv.URL}, "Bearer for-a"},
		{other, []string{"--db", other.srv.URL, "--auth-token", "global", "diff", other.srv.URL + "/home", evil.srv.URL}, "Bearer global"},
	} {
		before := len(c.h.seen)
		if r = runMain(t, nil, "", c.args); r.code != 2 {
			t.Errorf("%q: exit %d", c.args, r.code)
		}
		c.h.mu.Lock()
		got := c.h.seen[before:]
		c.h.mu.Unlock()
		for _, a := range got {
			if a != c.want {
				t.Errorf("%q: the listener got Authorization %q; want only %q", c.args, a, c.want)
			}
		}
	}

	// Without any token, the refusal says how to give one.
	r = runMain(t, nil, "", []string{"diff", srv.URL, srv.WSURL})
	if r.code != 2 || !strings.Contains(r.stderr, "--a-auth-token") {
		t.Errorf("diff without a token: exit %d, stderr %q; want 2 with the --a-auth-token hint", r.code, r.stderr)
	}
	// The global token goes to the side on --db's server, and the store
	// equals its own dump; without --db it goes nowhere, even to the one
	// server of the comparison.
	dump := runMain(t, nil, "", []string{"--db", srv.URL, "--auth-token", token, "dump"})
	if dump.code != 0 {
		t.Fatalf("dump: exit %d: %s", dump.code, dump.stderr)
	}
	if r = runMain(t, nil, dump.stdout, []string{"--db", srv.URL, "--auth-token", token, "diff", srv.URL, "-"}); r.code != 0 {
		t.Errorf("diff sqld against its dump: exit %d, stderr %q; want 0", r.code, r.stderr)
	}
	if r = runMain(t, nil, dump.stdout, []string{"--auth-token", token, "diff", srv.URL, "-"}); r.code != 2 || !strings.Contains(r.stderr, "--a-auth-token") {
		t.Errorf("diff sqld against its dump without --db: exit %d, stderr %q; want 2 with the --a-auth-token hint", r.code, r.stderr)
	}
	if r = runMain(t, nil, dump.stdout, []string{"diff", "-", srv.WSURL, "--b-auth-token", token}); r.code != 0 {
		t.Errorf("diff dump against sqld with --b-auth-token: exit %d, stderr %q; want 0", r.code, r.stderr)
	}
	if r = runMain(t, nil, "", []string{"diff", "--a-auth-token", "x", "dump.jsonl", srv.URL}); r.code != 2 || !strings.Contains(r.stderr, "--a-auth-token is for a server") {
		t.Errorf("a token for a dump side: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestTwoStoreCommandsKeepTheGlobalTokenToDB: in a command that names
// stores of its own (copy's --from and --to, diff's A and B, the fleet's
// saved stores), the global token (--auth-token, KVDECK_AUTH_TOKEN, …)
// goes only to a store on the server of the database the global flags
// select (--db, KVDECK_DB, …), and never to a saved store (which has its
// own); a side's own flag (--from-auth-token, --to-auth-token) goes to its
// side only. A listener on another server gets requests and never an
// Authorization header. Before, copy sent the global token to --to (a
// URL, or a saved store's name) over plain http, and diff sent it to the
// one server of a comparison whatever --db was.
func TestTwoStoreCommandsKeepTheGlobalTokenToDB(t *testing.T) {
	srv := sqldtest.Start(t, sqldtest.WithJWT())
	token := srv.Token(t)
	evil := newHeaderLog(t)
	env := storesEnv(t)
	dir := t.TempDir()
	src := "file:" + filepath.Join(dir, "src.db")
	configFile(t, env, "[stores.src]\nurl = \""+src+"\"\n[stores.stranger]\nurl = \""+evil.srv.URL+"\"\nread_only = false\n", 0o600)
	with := func(extra map[string]string) map[string]string {
		e := maps.Clone(env)
		maps.Copy(e, extra)
		return e
	}
	run := func(env map[string]string, stdin string, args ...string) result {
		t.Helper()
		return runMain(t, env, stdin, args)
	}
	// shown is args as a failure prints them: the token never.
	shown := func(args []string) string { return strings.ReplaceAll(strings.Join(args, " "), token, "TOKEN") }
	if r := run(env, "", "--db", src, "set", `["k"]`, "1"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	if r := run(env, "", "--db", srv.URL, "--auth-token", token, "set", `["k"]`, "1"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	envToken := map[string]string{"KVDECK_AUTH_TOKEN": token}

	// Never to the listener: every command that names stores of its own.
	for _, c := range []struct {
		env   map[string]string
		stdin string
		args  []string
	}{
		{env, "", []string{"--auth-token", token, "copy", "--from", src, "--to", evil.srv.URL, `[]`}},
		{with(envToken), "", []string{"copy", "--from", src, "--to", evil.srv.URL, `[]`}},
		{env, "", []string{"--auth-token", token, "copy", "--from", "src", "--to", evil.srv.URL, `[]`}},
		{env, "", []string{"--auth-token", token, "copy", "--from", "src", "--to", "stranger", `[]`}},
		{with(envToken), "", []string{"copy", "--from", "src", "--to", "stranger", `[]`}},
		{env, "", []string{"--auth-token", token, "copy", "--from", evil.srv.URL, "--to", src, `[]`}},
		{env, "", []string{"--db", srv.URL, "--auth-token", token, "copy", "--from", srv.URL, "--to", evil.srv.URL, `[]`}},
		{env, "", []string{"--auth-token", token, "diff", evil.srv.URL, "-"}},
		{with(envToken), "", []string{"diff", src, evil.srv.URL}},
		{env, "", []string{"--auth-token", token, "fleet", "find", `["k"]`}},
		{with(envToken), "", []string{"fleet", "find", `["k"]`}},
		{env, "", []string{"--auth-token", token, "fleet", "status"}},
		{with(envToken), "", []string{"fleet", "doctor"}},
	} {
		before, _ := evil.log()
		r := run(c.env, c.stdin, c.args...)
		n, _ := evil.log()
		evil.mu.Lock()
		got := slices.Clone(evil.seen[before:])
		evil.mu.Unlock()
		if r.code != CodeError || n == before || slices.ContainsFunc(got, func(a string) bool { return a != "" }) || strings.Contains(r.stderr, token) {
			t.Errorf("%s: exit %d, the listener got %d requests, %d with Authorization; want exit 2, some requests, none with a token\n%s", shown(c.args), r.code, n-before, len(slices.DeleteFunc(got, func(a string) bool { return a == "" })), r.stderr)
		}
	}

	// A store on --db's server gets the global token; a side's own flag
	// goes to that side.
	for i, args := range [][]string{
		{"--db", srv.URL, "--auth-token", token, "copy", "--from", srv.URL, "--to", "file:" + filepath.Join(dir, "a.db"), `[]`},
		{"copy", "--from-auth-token", token, "--from", srv.WSURL, "--to", "file:" + filepath.Join(dir, "b.db"), `[]`},
		{"--db", srv.URL, "--auth-token", token, "copy", "--from", src, "--to", srv.WSURL, "--overwrite", `[]`},
	} {
		if r := run(env, "", args...); r.code != 0 {
			t.Errorf("%d %s: exit %d\n%s", i, shown(args), r.code, r.stderr)
		}
	}
	if r := run(with(map[string]string{"KVDECK_DB": srv.URL, "KVDECK_AUTH_TOKEN": token}), "", "diff", srv.URL, src); r.code != 0 {
		t.Errorf("diff with KVDECK_DB's token: exit %d\n%s", r.code, r.stderr)
	}
	before := len(evil.seen)
	if r := run(env, "", "copy", "--from", src, "--to-auth-token", "for-to", "--to", evil.srv.URL, `[]`); r.code != CodeError {
		t.Errorf("--to-auth-token: exit %d", r.code)
	}
	evil.mu.Lock()
	for _, a := range evil.seen[before:] {
		if a != "Bearer for-to" {
			t.Errorf("--to-auth-token: the listener got Authorization %q", a)
		}
	}
	evil.mu.Unlock()
	// Without --db, the global token goes nowhere, and the refusal says
	// how to give one.
	r := run(env, "", "--auth-token", token, "copy", "--from", srv.URL, "--to", "file:"+filepath.Join(dir, "c.db"), `[]`)
	if r.code != CodeError || !strings.Contains(r.stderr, "--from-auth-token") || strings.Contains(r.stderr, token) {
		t.Errorf("copy from the sqld without --db: exit %d, stderr %q; want 2 with the --from-auth-token hint", r.code, r.stderr)
	}
	if r := run(env, "", "copy", "--from-auth-token", "x", "--from", src, "--to", "file:"+filepath.Join(dir, "d.db"), `[]`); r.code != CodeError || !strings.Contains(r.stderr, "--from-auth-token is for a server") {
		t.Errorf("a token for a file side: exit %d, stderr %q", r.code, r.stderr)
	}
}
