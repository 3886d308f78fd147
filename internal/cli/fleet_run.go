package cli

import (
	"context"
	"fmt"
	"os"
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
	ctx, cancel = fleetContext(app, s, timeout)
	if token, err = fleetToken(ctx, app, cfg, s, timeout); err != nil {
		return ctx, cancel, nil, "", err
	}
	st, err = app.Open(ctx, Opening{URL: savedURL(s), Token: token, Access: ReadOnly, Timeout: timeout, Replica: s.ReplicaURL, Own: true})
	return ctx, cancel, st, token, err
}

// fleetToken is s's own token, had within timeout whatever the store (a
// token command may hang beside a database file too).
func fleetToken(ctx context.Context, app *App, cfg *storeconfig.Config, s storeconfig.Store, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return cfg.Token(ctx, s, app.Env)
}

// fleetPulse reads one saved store's coord.Pulse with its own token (and
// no other), a server's within timeout: opened read-only and unchecked
// (store.Options.Unchecked: no request), then one statement, whose time
// is rtt (over a server the round trip of its one request, the
// connection included when one is made). With members (--watch) the store
// stays open for the next round.
func fleetPulse(app *App, cfg *storeconfig.Config, s storeconfig.Store, timeout time.Duration, members *fleetMembers) (p coord.Pulse, token string, rtt time.Duration, err error) {
	ctx, cancel := fleetContext(app, s, timeout)
	defer cancel()
	st, token, err := members.take(ctx, s, func(ctx context.Context) (string, *store.Store, error) {
		token, err := fleetToken(ctx, app, cfg, s, timeout)
		if err != nil {
			return token, nil, err
		}
		st, err := app.Open(ctx, Opening{URL: savedURL(s), Token: token, Access: ReadOnly, Unchecked: true, Timeout: timeout, Replica: s.ReplicaURL, Own: true})
		return token, st, err
	})
	if err != nil {
		return p, token, 0, err
	}
	start := time.Now()
	p, err = coord.ReadPulse(ctx, st, app.Now())
	rtt = time.Since(start)
	if members == nil {
		_ = st.Close()
	}
	members.give(s.Name, err)
	return p, token, rtt, err
}

// fleetContext is the command's context, with timeout for a store on a
// server (a database file does not hang: its locks wait --busy-timeout).
func fleetContext(app *App, s storeconfig.Store, timeout time.Duration) (context.Context, context.CancelFunc) {
	if t, err := store.ParseTarget(s.URL); err == nil && t.Transport.Remote() {
		return context.WithTimeout(app.Context(), timeout)
	}
	return app.Context(), func() {}
}

// fleetMembers keeps the saved stores a fleet reads again and again
// (kvdeck fleet --watch, the TUI's Fleet view) open from one read to the
// next: each store's token is had (its token command run) and the store
// opened once. A store whose read failed, or whose saved URL changed, is closed and opened afresh the
// next time (a token that expired is asked for again, a server that
// restarted dialled again), as is a database file replaced at its path
// (the open handle would read the removed one). A store is taken by one
// reader at a time and given back after its read. A nil *fleetMembers
// keeps nothing: take opens, give closes.
type fleetMembers struct {
	mu   sync.Mutex
	idle map[string]fleetMember // open, between reads
	lent map[string]fleetMember // taken, being read
	// taken are the stores a reader has claimed (wait), each closed when
	// it is given back: a second reader waits for it.
	taken  map[string]chan struct{}
	closed bool
}

// fleetMember is one open store, the URL and token it was opened with,
// and for a database file the file it opened.
type fleetMember struct {
	st         *store.Store
	url, token string
	file       os.FileInfo
}

// take returns s's open store and its token, opening it with open when it
// is not. On an error the token had, if any, comes back for redaction.
// A store is read by one reader at a time: a second reader of it (the
// Fleet view and a tab's fleet mode read the same stores) waits, within
// ctx, until the first gives it back.
func (f *fleetMembers) take(ctx context.Context, s storeconfig.Store, open func(context.Context) (string, *store.Store, error)) (*store.Store, string, error) {
	if f != nil {
		if err := f.wait(ctx, s.Name); err != nil {
			return nil, "", err
		}
		f.mu.Lock()
		m, ok := f.idle[s.Name]
		delete(f.idle, s.Name)
		if ok && m.url == s.URL && m.sameFile() {
			f.lend(s.Name, m)
			f.mu.Unlock()
			return m.st, m.token, nil
		}
		f.mu.Unlock()
		if ok {
			_ = m.st.Close()
		}
	}
	m := fleetMember{url: s.URL}
	if t, err := store.ParseTarget(s.URL); err == nil && t.Transport == store.TransportFile {
		m.file, _ = os.Stat(t.Path) // before the open: a file replaced after it is seen next time
	}
	var err error
	if m.token, m.st, err = open(ctx); err != nil {
		f.release(s.Name)
		return nil, m.token, err
	}
	if f == nil {
		return m.st, m.token, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lend(s.Name, m)
	return m.st, m.token, nil
}

// wait waits until no reader has the store name, and claims it.
func (f *fleetMembers) wait(ctx context.Context, name string) error {
	for {
		f.mu.Lock()
		ch, busy := f.taken[name]
		if !busy {
			if f.taken == nil {
				f.taken = map[string]chan struct{}{}
			}
			f.taken[name] = make(chan struct{})
			f.mu.Unlock()
			return nil
		}
		f.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// release ends a reader's claim on the store name (wait).
func (f *fleetMembers) release(name string) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releaseLocked(name)
}

// releaseLocked is release with f.mu held.
func (f *fleetMembers) releaseLocked(name string) {
	if ch, ok := f.taken[name]; ok {
		close(ch)
		delete(f.taken, name)
	}
}

// lend notes m as taken (f.mu held).
func (f *fleetMembers) lend(name string, m fleetMember) {
	if f.lent == nil {
		f.lent = map[string]fleetMember{}
	}
	f.lent[name] = m
}

// give ends the read of the store taken for name: kept for the next one
// when it succeeded, else closed. Without members the store, which the
// caller then holds alone, is closed by the caller.
func (f *fleetMembers) give(name string, readErr error) {
	if f == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.releaseLocked(name)
	m, ok := f.lent[name]
	if !ok {
		return
	}
	delete(f.lent, name)
	if readErr != nil || f.closed {
		_ = m.st.Close()
		return
	}
	if f.idle == nil {
		f.idle = map[string]fleetMember{}
	}
	f.idle[name] = m
}

// close closes the stores kept, and each one taken when it is given back.
func (f *fleetMembers) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for name, m := range f.idle {
		_ = m.st.Close()
		delete(f.idle, name)
	}
}

// sameFile reports whether a member's database file is still the one at
// its path (always true on a server).
func (m fleetMember) sameFile() bool {
	if m.file == nil {
		return true
	}
	t, err := store.ParseTarget(m.url)
	if err != nil {
		return false
	}
	now, err := os.Stat(t.Path)
	return err == nil && os.SameFile(now, m.file)
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
