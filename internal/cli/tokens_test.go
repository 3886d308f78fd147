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
