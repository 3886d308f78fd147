package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"kvdeck/store"
)

// tokenScope binds each auth token to the server it was given for (its
// store.Target.Server: host and port, whatever the scheme), so that the
// TUI's :open sends a token only there. The token of --auth-token (or its
// environment variables) is bound to the server of the database the TUI
// starts on; a database file binds nothing, so with a file first every
// server opened later gets no token until one is given for it
// (:open URL --auth-token, typed at a prompt that does not echo it).
type tokenScope struct {
	mu       sync.Mutex
	byServer map[string]string
}

// bind makes token the one sent to url's server; a file URL or an empty
// token binds nothing.
func (k *tokenScope) bind(url, token string) {
	server := serverOf(url)
	if server == "" || token == "" {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.byServer == nil {
		k.byServer = map[string]string{}
	}
	k.byServer[server] = token
}

// lookup is the token bound to url's server, "" when none is.
func (k *tokenScope) lookup(url string) string {
	server := serverOf(url)
	if server == "" {
		return ""
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.byServer[server]
}

// serverOf is url's store.Target.Server, "" for a file or a bad URL.
func serverOf(url string) string {
	t, err := store.ParseTarget(url)
	if err != nil {
		return ""
	}
	return t.Server()
}

// openScoped opens url with the options of the command and the token
// bound to url's server, if any: what the TUI's :open URL and its views'
// extra connections use.
func (a *App) openScoped(ctx context.Context, url string) (*store.Store, error) {
	return a.Open(ctx, Opening{URL: url, Token: a.tokens.lookup(url)})
}

// openWithToken opens url with token (the TUI's :open URL --auth-token)
// and, once the server accepted it, binds it to url's server for the
// connections that follow.
func (a *App) openWithToken(ctx context.Context, url, token string) (*store.Store, error) {
	if token != "" && serverOf(url) == "" {
		if _, err := store.ParseTarget(url); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: a database file takes no auth token", store.ErrBadURL)
	}
	s, err := a.Open(ctx, Opening{URL: url, Token: token})
	if err == nil {
		a.tokens.bind(url, token)
	}
	return s, err
}

// globalTokenFor is the global token (--auth-token, else the token
// variables, or the saved store --store selected) for url in a command
// that names stores of its own (copy's --from and --to, diff's A and B):
// given only when url is on the server of the database the global flags
// select (--db, KVDECK_DB, LIBSQL_URL, TURSO_DATABASE_URL, --store), the
// one it was given for; "" for a file or a URL on another server. A
// token goes only to the store it was given for.
func (a *App) globalTokenFor(url string) string {
	server := serverOf(url)
	if server == "" {
		return ""
	}
	if db, _ := a.Globals.ResolveDB(a.Env); serverOf(db) != server {
		return ""
	}
	return a.Globals.ResolveToken(a.Env)
}

// noTokenHint adds to a side's refusal by its server, when no token was
// sent there, how to give one: the side's own flag, or --db naming that
// server for the global token.
func noTokenHint(err error, token, side, flag string) error {
	if token != "" || !errors.Is(err, store.ErrUnauthorized) {
		return err
	}
	return fmt.Errorf("%w (no token was sent to %s's server: give it with %s; --auth-token and the token variables go only to the server of --db)", err, side, flag)
}

// redactToo adds a token had while the command runs (a saved store's, for
// one side of a copy) to what stderr redacts.
func (a *App) redactToo(token string) {
	if r, ok := a.Stderr.(*redactor); ok && token != "" {
		r.add(token)
	}
}
