package cli

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"kvdeck/internal/storeconfig"
	"kvdeck/store"
	"kvdeck/store/coord"
)

// fleetStores are the saved stores of group (all when ""), in name order;
// none is an error naming the config file.
func fleetStores(app *App, group string) (*storeconfig.Config, []storeconfig.Store, error) {
	cfg, err := loadConfig(app)
	if err != nil {
		return nil, nil, err
	}
	var stores []storeconfig.Store
	for _, name := range cfg.Names() {
		if s := cfg.Stores[name]; group == "" || s.Group == group {
			stores = append(stores, s)
		}
	}
	if len(stores) == 0 {
		if group != "" {
			return nil, nil, fmt.Errorf("no saved store in group %s (%s)", shown(group), cfg.Path)
		}
		return nil, nil, fmt.Errorf("no saved stores (%s); kvdeck stores add NAME URL saves one", cfg.Path)
	}
	return cfg, stores, nil
}

// fleetLimits checks --concurrency and --timeout.
func fleetLimits(concurrency int, timeout time.Duration) error {
	if concurrency < 1 {
		return fmt.Errorf("--concurrency %d: must be at least 1", concurrency)
	}
	if timeout <= 0 {
		return fmt.Errorf("--timeout %s: must be positive", timeout)
	}
	return nil
}

// fleetEach runs examine on every store, at most concurrency at once, and
// hands emit the results in the stores' order, each as soon as it and the
// ones before it are in. A store still waiting for a slot when the command
// is interrupted gets cancelled(s, err).
func fleetEach[T any](app *App, stores []storeconfig.Store, concurrency int,
	examine func(storeconfig.Store) T, cancelled func(storeconfig.Store, error) T, emit func(T)) {
	rows := make([]T, len(stores))
	done := make([]chan struct{}, len(stores))
	sem := make(chan struct{}, concurrency)
	var wg sync.WaitGroup
	for i, s := range stores {
		done[i] = make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			select {
			case sem <- struct{}{}:
			case <-app.Context().Done():
				rows[i] = cancelled(s, app.Context().Err())
				return
			}
			defer func() { <-sem }()
			rows[i] = examine(s)
		}()
	}
	for i := range stores {
		<-done[i]
		emit(rows[i])
	}
	wg.Wait()
}

// fleetOpen opens one saved store read-only with its own token (and no
// other), a server's within timeout (the returned context carries that
// deadline; cancel it when done).
func fleetOpen(app *App, cfg *storeconfig.Config, s storeconfig.Store, timeout time.Duration) (ctx context.Context, cancel context.CancelFunc, st *store.Store, token string, err error) {
	ctx, cancel = app.Context(), func() {}
	if t, perr := store.ParseTarget(s.URL); perr == nil && t.Transport.Remote() {
		// A server may hang; a database file does not (its locks wait
		// --busy-timeout): only servers get the deadline.
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	if token, err = cfg.Token(ctx, s, app.Env); err != nil {
		return ctx, cancel, nil, "", err
	}
	st, err = store.Open(ctx, s.URL, store.Options{
		AuthToken: token, ReadOnly: true, Clock: app.Now,
		BusyTimeout: app.Globals.BusyTimeout, RequestTimeout: timeout, OnLockedRead: app.lockedReadNote,
	})
	return ctx, cancel, st, token, err
}

// fleetPulse reads one saved store's coord.Pulse with its own token (and
// no other), a server's within timeout: opened read-only and unchecked
// (store.Options.Unchecked: no request), then one statement, whose time
// is rtt (over a server the round trip of its one request, the
// connection included).
func fleetPulse(app *App, cfg *storeconfig.Config, s storeconfig.Store, timeout time.Duration) (p coord.Pulse, token string, rtt time.Duration, err error) {
	ctx, cancel := app.Context(), func() {}
	if t, perr := store.ParseTarget(s.URL); perr == nil && t.Transport.Remote() {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	if token, err = cfg.Token(ctx, s, app.Env); err != nil {
		return p, "", 0, err
	}
	st, err := store.Open(ctx, s.URL, store.Options{
		AuthToken: token, ReadOnly: true, Unchecked: true, Clock: app.Now,
		BusyTimeout: app.Globals.BusyTimeout, RequestTimeout: timeout, OnLockedRead: app.lockedReadNote,
	})
	if err != nil {
		return p, token, 0, err
	}
	defer st.Close()
	start := time.Now()
	p, err = coord.ReadPulse(ctx, st, app.Now())
	return p, token, time.Since(start), err
}

// fleetError is an error's message with the token cut out (the store
// scrubs its own errors; this covers the rest).
func fleetError(err error, token string) string {
	msg := err.Error()
	if token != "" {
		msg = strings.ReplaceAll(msg, token, "<redacted>")
	}
	return msg
}
