package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"kvdeck/internal/storeconfig"
	"kvdeck/internal/tuiconfig"
	"kvdeck/store"
)

// TUICmd opens the terminal explorer.
type TUICmd struct {
	Refresh time.Duration `name:"refresh" placeholder:"DURATION" default:"1s" help:"Live refresh interval."`
	Fleet   string        `name:"fleet" placeholder:"GROUP" help:"Start Leases, Alarms and Queues on every saved store of GROUP at once (A switches), on the Alarms tab."`
}

// Run opens the store and hands it to the TUI.
func (c *TUICmd) Run(app *App) error {
	if c.Refresh <= 0 {
		return fmt.Errorf("--refresh %s: must be positive", c.Refresh)
	}
	if c.Fleet != "" {
		// A group no saved store is in is a typo: said before the
		// screen is taken.
		if _, _, err := fleetStores(app, c.Fleet); err != nil {
			return fmt.Errorf("--fleet %s: %w", shown(c.Fleet), err)
		}
		app.tuiFleet = c.Fleet
	}
	s, err := app.Open(app.Context(), Opening{})
	if err != nil {
		return err
	}
	return app.RunTUI(s, c.Refresh)
}

// The TUI's store switcher (:store NAME and its picker) opens saved
// stores through savedForTUI: each as `--store NAME` would open it.

// savedForTUI fills in cfg's saved-store functions and the store the TUI
// starts on.
func (a *App) savedForTUI(cfg *tuiconfig.Config) {
	cfg.Stores = a.tuiStores
	cfg.OpenStore = a.tuiOpenStore
	cfg.OpenProbe = a.tuiOpenProbe
	cfg.ProbeDone = a.probes.give
	cfg.Platform = a.tuiPlatform
	if ss := a.Globals.saved; ss != nil {
		cfg.Current = tuiconfig.SavedStore{Name: ss.name, Group: ss.group, URL: ss.url, ReadOnly: a.Globals.ReadOnly}
	}
}

// loadStores reads config.toml again (a store added meanwhile shows).
func (a *App) loadStores() (*storeconfig.Config, error) {
	path, err := storeconfig.Path(a.Env)
	if err != nil {
		return nil, err
	}
	cfg, err := storeconfig.Load(path)
	return a.withMint(cfg), err
}

// tuiReadOnly is whether the TUI opens st read-only: --read-only (the
// user's, not the one resolveSaved set for a store saved read-only) keeps
// every store read-only; else as saved, unless --write.
func (a *App) tuiReadOnly(st storeconfig.Store) bool {
	g := a.Globals
	userRO := g.ReadOnly && (g.saved == nil || !g.saved.readOnly)
	return userRO || st.IsReadOnly() && !g.Write
}

func (a *App) tuiEntry(st storeconfig.Store) tuiconfig.SavedStore {
	return tuiconfig.SavedStore{Name: st.Name, Group: st.Group, URL: st.URL, ReadOnly: a.tuiReadOnly(st)}
}

// tuiStores lists the saved stores in name order.
func (a *App) tuiStores() ([]tuiconfig.SavedStore, error) {
	cfg, err := a.loadStores()
	if err != nil {
		return nil, err
	}
	var out []tuiconfig.SavedStore
	for _, name := range cfg.Names() {
		st, _ := cfg.Get(name)
		out = append(out, a.tuiEntry(st))
	}
	return out, nil
}

// tuiOpenProbe opens the saved store name for the Fleet view: read-only
// and unchecked (no request: the view's one read is the check), with its
// own token (--auth-token only for the store the command line named).
// The store stays open from one read to the next (a.probes: the view
// gives it back through ProbeDone, and the command's end closes it). The
// token is cut out of any error.
func (a *App) tuiOpenProbe(ctx context.Context, name string) (*store.Store, error) {
	cfg, err := a.loadStores()
	if err != nil {
		return nil, err
	}
	st, err := cfg.Get(name)
	if err != nil {
		return nil, err
	}
	s, token, err := a.probes.take(ctx, st, func(ctx context.Context) (string, *store.Store, error) {
		token := ""
		if a.Globals.AuthToken != "" && a.Globals.saved != nil && a.Globals.saved.name == st.Name {
			token = a.Globals.AuthToken
		} else if token, err = cfg.Token(ctx, st, a.Env); err != nil {
			return "", nil, err
		}
		s, err := a.Open(ctx, Opening{URL: savedURL(st), Token: token, Access: ReadOnly, Unchecked: true, Replica: st.ReplicaURL, Own: true})
		return token, s, err
	})
	if err != nil && token != "" && strings.Contains(err.Error(), token) {
		err = errors.New(fleetError(err, token))
	}
	return s, err
}

// tuiOpenStore opens the saved store name for the TUI: its own token
// (--auth-token only for the store the command line named, as there),
// read-only per tuiReadOnly, journaled per its URL when writable (open
// attaches the journal), and its token bound to its server for the
// views' extra connections. The token is cut out of any error.
func (a *App) tuiOpenStore(ctx context.Context, name string) (*store.Store, tuiconfig.SavedStore, error) {
	cfg, err := a.loadStores()
	if err != nil {
		return nil, tuiconfig.SavedStore{}, err
	}
	st, err := cfg.Get(name)
	if err != nil {
		return nil, tuiconfig.SavedStore{}, err
	}
	entry := a.tuiEntry(st)
	var token string
	if a.Globals.AuthToken != "" && a.Globals.saved != nil && a.Globals.saved.name == st.Name {
		token = a.Globals.AuthToken
	} else if token, err = cfg.TokenFor(ctx, st, a.Env, !entry.ReadOnly); err != nil {
		return nil, entry, err
	}
	access := Writable
	if entry.ReadOnly {
		access = ReadOnly
	}
	s, err := a.Open(ctx, Opening{URL: savedURL(st), Token: token, Access: access, Replica: st.ReplicaURL})
	if err != nil {
		if token != "" && strings.Contains(err.Error(), token) {
			err = errors.New(strings.ReplaceAll(err.Error(), token, "<redacted>"))
		}
		return nil, entry, err
	}
	a.tokens.bind(st.URL, token)
	return s, entry, nil
}
