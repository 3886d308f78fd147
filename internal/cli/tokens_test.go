package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
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
// Authorization header (issue 12 point 4: before the fix it received the
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
// only (issue 25 point 4: the global token reached a listener on another
// server). With one server in the comparison the global token goes there.
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
	// One server in the comparison (a dump on the other side): the global
	// token goes there, and the store equals its own dump.
	dump := runMain(t, nil, "", []string{"--db", srv.URL, "--auth-token", token, "dump"})
	if dump.code != 0 {
		t.Fatalf("dump: exit %d: %s", dump.code, dump.stderr)
	}
	if r = runMain(t, nil, dump.stdout, []string{"--auth-token", token, "diff", srv.URL, "-"}); r.code != 0 {
		t.Errorf("diff sqld against its dump: exit %d, stderr %q; want 0", r.code, r.stderr)
	}
	if r = runMain(t, nil, dump.stdout, []string{"diff", "-", srv.WSURL, "--b-auth-token", token}); r.code != 0 {
		t.Errorf("diff dump against sqld with --b-auth-token: exit %d, stderr %q; want 0", r.code, r.stderr)
	}
	if r = runMain(t, nil, "", []string{"diff", "--a-auth-token", "x", "dump.jsonl", srv.URL}); r.code != 2 || !strings.Contains(r.stderr, "--a-auth-token is for a server") {
		t.Errorf("a token for a dump side: exit %d, stderr %q", r.code, r.stderr)
	}
}
