package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"kvdeck/internal/exporter"
	"kvdeck/internal/storeconfig"
	"kvdeck/store"
)

// ExporterCmd serves Prometheus metrics of the saved stores.
type ExporterCmd struct {
	Group       string        `name:"group" short:"g" placeholder:"GROUP" predictor:"group" help:"Only the stores of this group."`
	Listen      string        `name:"listen" placeholder:"ADDR" default:"127.0.0.1:9726" help:"Where to serve /metrics, /scrape?store=NAME and /healthz (host:port; loopback by default)."`
	Timeout     time.Duration `name:"timeout" placeholder:"DURATION" default:"10s" help:"How long one store may take in a scrape (token, connection, the read) before it is up 0."`
	Concurrency int           `name:"concurrency" default:"8" help:"How many stores a scrape reads at once."`
}

// exporterTokenFor is how long the exporter keeps a store's token before
// it asks its source again: a token command (a password manager) is not
// run on every scrape, and a token changed at its source is taken up
// within this time.
const exporterTokenFor = 5 * time.Minute

// Run serves until interrupted (exit 0). The stores are listed again on
// every scrape (a store saved meanwhile is scraped); each is opened
// read-only and unchecked, with its own token, and read in one
// statement (the pulse with each queue's figures).
func (c *ExporterCmd) Run(app *App) error {
	if err := fleetLimits(c.Concurrency, c.Timeout); err != nil {
		return err
	}
	if _, _, err := fleetStores(app, c.Group); err != nil {
		return err
	}
	tokens := &exporterTokens{byKey: map[string]keptToken{}}
	e := exporter.New(exporter.Options{
		Targets: func() ([]exporter.Target, error) { return c.targets(app, tokens) },
		Timeout: c.Timeout, Concurrency: c.Concurrency, Now: app.Now,
	})
	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", c.Listen, err)
	}
	srv := &http.Server{Handler: e.Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(app.Stderr, "kvdeck exporter: serving http://%s/metrics (and /scrape?store=NAME, /healthz); ctrl+c stops\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-app.Context().Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// targets are the saved stores of the group, each opened with its own
// token (kept for exporterTokenFor).
func (c *ExporterCmd) targets(app *App, tokens *exporterTokens) ([]exporter.Target, error) {
	cfg, stores, err := fleetStores(app, c.Group)
	if err != nil {
		return nil, err
	}
	out := make([]exporter.Target, len(stores))
	for i, s := range stores {
		out[i] = exporter.Target{Name: s.Name, Group: s.Group, Open: func(ctx context.Context) (*store.Store, error) {
			token, err := tokens.get(ctx, app, cfg, s)
			if err != nil {
				return nil, err
			}
			return app.Open(ctx, Opening{URL: savedURL(s), Token: token, Access: ReadOnly, Unchecked: true, Timeout: c.Timeout, Replica: s.ReplicaURL, Own: true})
		}}
	}
	return out, nil
}

// exporterTokens keeps the stores' tokens between scrapes, by name and
// URL, in memory.
type exporterTokens struct {
	mu    sync.Mutex
	byKey map[string]keptToken
}

type keptToken struct {
	token string
	at    time.Time
}

// get is s's token, from its source at most every exporterTokenFor.
func (k *exporterTokens) get(ctx context.Context, app *App, cfg *storeconfig.Config, s storeconfig.Store) (string, error) {
	key := s.Name + "\x00" + s.URL
	k.mu.Lock()
	kept, ok := k.byKey[key]
	k.mu.Unlock()
	if ok && time.Since(kept.at) < exporterTokenFor {
		return kept.token, nil
	}
	token, err := cfg.Token(ctx, s, app.Env)
	if err != nil {
		return "", err
	}
	k.mu.Lock()
	k.byKey[key] = keptToken{token: token, at: time.Now()}
	k.mu.Unlock()
	return token, nil
}
