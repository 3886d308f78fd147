package cli

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"kvdeck/internal/platform"
	"kvdeck/internal/storeconfig"
	"kvdeck/store"
)

// A saved store's tenancy (storeconfig/tenants.go) as the CLI opens it:
// its namespace rides in the URL (savedURL: ?namespace=NAME, the form
// every opener understands), its replica in store.Options (savedOptions),
// and a token minted from Turso's Platform API is had through App.mint.

// savedURL is the URL a saved store is opened at: its url, with its
// namespace as ?namespace=NAME when the url names none.
func savedURL(s storeconfig.Store) string {
	if s.Namespace == "" || strings.Contains(s.URL, "?") {
		return s.URL
	}
	return s.URL + "?namespace=" + s.Namespace
}

// savedOptions are o with the saved store's replica, when it has one.
func savedOptions(s storeconfig.Store, o store.Options) store.Options {
	o.Replica = s.ReplicaURL
	return o
}

// mintTTL is how long a minted group token is asked to live: a working
// session (the TUI stays open for hours; a token that expired under it
// would fail its next read).
const mintTTL = 8 * time.Hour

// mintSlack is how long before its expiry a kept token is minted anew.
const mintSlack = 10 * time.Minute

// mintedTokens holds the Turso group tokens this process minted, by
// organization, group and access, until shortly before they expire: a
// session mints one read-only token per group its stores are in, and a
// write token only when it opens one of them to write. They live in
// memory only: the Platform API never gives a token again, and a token
// on disk would outlive the session that needed it; a new process mints
// anew (one request, and the tokens expire by themselves).
type mintedTokens struct {
	mu    sync.Mutex
	byKey map[string]mintedToken
}

type mintedToken struct {
	token string
	until time.Time
}

// withMint is cfg with the process's minter set (storeconfig.Config.Mint).
func (a *App) withMint(cfg *storeconfig.Config) *storeconfig.Config {
	if cfg != nil {
		cfg.Mint = a.mint
	}
	return cfg
}

// mint is the token of a store whose token is minted: a group token of
// its Turso group, read-only unless write, kept for the session. The
// Platform API token comes from the store's turso_api_token_env or
// turso_api_token_command and goes to the API only.
func (a *App) mint(ctx context.Context, s storeconfig.Store, write bool) (string, error) {
	key := strings.Join([]string{s.TursoAPI, s.TursoOrg, s.TursoGroup, fmt.Sprint(write)}, "\x00")
	m := &a.minted
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.byKey[key]; ok && time.Now().Add(mintSlack).Before(t.until) {
		return t.token, nil
	}
	apiToken, err := s.TursoAPIToken(ctx, a.Env)
	if err != nil {
		return "", err
	}
	api := platform.Turso{API: s.TursoAPI, Org: s.TursoOrg, Token: apiToken}
	tok, err := api.GroupToken(ctx, s.TursoGroup, mintTTL, write)
	if err != nil {
		return "", fmt.Errorf("%w for store %q: %w", storeconfig.ErrToken, s.Name, err)
	}
	if m.byKey == nil {
		m.byKey = map[string]mintedToken{}
	}
	m.byKey[key] = mintedToken{token: tok, until: time.Now().Add(mintTTL)}
	return tok, nil
}

// tenancy completes opts for the saved store of the global flags when
// url is its URL: its replica, and a minted token (read-only unless opts
// opens it to write) when it has no other and --auth-token gave none.
// The minted token joins the secrets stderr never shows.
func (a *App) tenancy(ctx context.Context, url string, opts store.Options) (store.Options, error) {
	ss := a.Globals.saved
	if ss == nil || url != ss.url {
		return opts, nil
	}
	opts = savedOptions(ss.conf, opts)
	if ss.conf.Minted() && opts.AuthToken == "" && a.Globals.AuthToken == "" {
		tok, err := a.mint(ctx, ss.conf, !opts.ReadOnly)
		if err != nil {
			return opts, err
		}
		a.redactToo(tok)
		opts.AuthToken = tok
	}
	return opts, nil
}

// tuiPlatform is the Fleet view's PLATFORM cell of the saved store name
// (readTenancy in a few words); "" when its entry names no platform.
func (a *App) tuiPlatform(ctx context.Context, name string) (string, error) {
	cfg, err := a.loadStores()
	if err != nil {
		return "", err
	}
	st, err := cfg.Get(name)
	if err != nil || !hasTenancy(st) {
		return "", err
	}
	return readTenancy(ctx, a, cfg, st).text(), nil
}
