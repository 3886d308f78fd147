package cli

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"strings"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/editsession"
	"kvdeck/internal/history"
	"kvdeck/internal/journal"
	"kvdeck/internal/platform"
	"kvdeck/internal/retry"
	"kvdeck/internal/storeconfig"
	"kvdeck/store"
)

// The time machine's side of the CLI: --at opens the store of the global
// flags as it was (OpenPast), diff's STORE@TIME a side as it was, and
// history and put-back read the same sources (internal/history). A past
// is read-only; what made it readable (a restored file, a Turso branch)
// goes when the command ends (App.after), or, killed, at the next start
// (editsession's stale directories).

// pastTarget is a store whose past is read.
type pastTarget struct {
	// name is how the store is shown: the saved store's name, else its
	// URL.
	name       string
	url, token string
	// conf is the saved store's config; nil for a URL given alone.
	conf *storeconfig.Store
	// replica is --replica, for the store of the global flags only.
	replica string
}

// globalTarget is the store the global flags select.
func (a *App) globalTarget() pastTarget {
	url, _ := a.Globals.ResolveDB(a.Env)
	t := pastTarget{name: store.RedactURL(url), url: url, token: a.Globals.ResolveToken(a.Env), replica: a.Globals.Replica}
	if ss := a.Globals.saved; ss != nil {
		conf := ss.conf
		t.name, t.conf = ss.name, &conf
	}
	return t
}

// pastRefusal refuses a write under --at: the store opened is the past,
// read-only. put-back is the one writer --at serves: it writes the keys
// it read there to the live store.
func (a *App) pastRefusal(what string) error {
	if a.Globals.At == "" || a.command == "put-back" {
		return nil
	}
	if what == "" {
		what = a.command
	}
	return fmt.Errorf("%w: %s refused; --at opens the store as it was, read-only (kvdeck --at TIME put-back KEY puts a key back as it was then)", store.ErrReadOnly, what)
}

// source finds where t's past is kept: --replica, the saved store's
// litestream_replica, its Turso database, a fork of its sqld namespace
// (the present only), or kvdeck record's history of its URL. The source
// is closed with the command.
func (a *App) source(t pastTarget) (history.Source, error) {
	replica := t.replica
	if replica == "" && t.conf != nil {
		replica = t.conf.LitestreamReplica
	}
	if replica != "" {
		bin, err := history.LitestreamBin(a.Env)
		if err != nil {
			return nil, err
		}
		return history.NewLitestream(bin, replica, environ(a.Env))
	}
	if t.conf != nil && t.conf.TursoOrg != "" {
		tok, err := t.conf.TursoAPIToken(a.ctx, a.Env)
		if err != nil {
			return nil, fmt.Errorf("store %s: a Turso branch needs a Platform API token: %w", t.name, err)
		}
		return &history.Turso{API: t.conf.TursoAPI, Org: t.conf.TursoOrg, Database: t.conf.TursoDatabase, Token: tok}, nil
	}
	if t.conf != nil && t.conf.AdminURL != "" {
		// A namespace on an sqld with its admin API: a fork of the
		// present (history.SqldFork says so for any earlier time).
		key, err := t.conf.AdminKey(a.Env)
		if err != nil {
			return nil, err
		}
		return &history.SqldFork{Admin: platform.Sqld{Admin: t.conf.AdminURL, Key: key}, Namespace: t.conf.NamespaceName(), URL: t.url, Token: t.token}, nil
	}
	rec, err := a.recording(t.url, false)
	if errors.Is(err, history.ErrNoRecording) {
		return nil, fmt.Errorf("%w: %s keeps no history kvdeck can read: save it with litestream_replica = URL (docs/stores.md), give --replica URL, or run kvdeck record beside it", history.ErrNoPoint, t.name)
	}
	if err != nil {
		return nil, err
	}
	return history.RecordingSource{R: rec}, nil
}

// recording opens kvdeck record's history file of the store at url
// (create: make it); it is closed with the command.
func (a *App) recording(url string, create bool) (*history.Recording, error) {
	dir, err := journal.StateDir(func(k string) string { return a.Env[k] })
	if err != nil {
		return nil, err
	}
	path, err := history.RecordingPath(dir, url)
	if err != nil {
		return nil, err
	}
	rec, err := history.OpenRecording(path, store.RedactURL(url), create)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.after = append(a.after, func() { rec.Close() })
	a.mu.Unlock()
	return rec, nil
}

// environ is env as os/exec wants it.
func environ(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// pastDir is the command's private directory for restored points
// (0700, files 0600), made on first use and removed when the command
// ends or a signal stops it. Restores go to $TMPDIR: a restored
// database is as large as the store.
func (a *App) pastDir() (*editsession.Session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.dir != nil {
		return a.dir, nil
	}
	d, err := editsession.OpenFor(os.TempDir(), "at")
	if err != nil {
		return nil, fmt.Errorf("a private directory for the restore: %w", err)
	}
	stop := d.CloseOn(a.ctx)
	a.dir = d
	a.after = append(a.after, func() { stop(); d.Close() })
	return d, nil
}

// pastStore is a store opened as it was.
type pastStore struct {
	s      *store.Store
	src    history.Source
	choice history.Choice
}

// label names the point and its source for people.
func (p pastStore) label() string {
	return p.choice.Text(p.src.Kind()) + " from " + p.src.Describe()
}

// openPast opens t as of the spec text, read-only: the source's point
// picked for it (history.OpenAt) made readable and opened. The store and
// what made it readable go when the command ends.
func (a *App) openPast(ctx context.Context, t pastTarget, text string) (pastStore, error) {
	p, err := a.openPastOwn(ctx, t, text)
	if err != nil {
		return pastStore{}, err
	}
	a.mu.Lock()
	a.after = append(a.after, func() { a.closePast(p) })
	a.mu.Unlock()
	return pastStore{s: p.Store, src: p.Source, choice: p.Choice}, nil
}

// openPastOwn is openPast whose caller closes the past (closePast): the
// TUI's :at, which moves from point to point.
func (a *App) openPastOwn(ctx context.Context, t pastTarget, text string) (*history.Past, error) {
	if _, err := history.ParseSpec(text, a.Now()); err != nil {
		return nil, fmt.Errorf("--at %w", err)
	}
	src, err := a.source(t)
	if err != nil {
		return nil, err
	}
	m, err := a.machine(src)
	if err != nil {
		return nil, err
	}
	p, err := m.At(ctx, text, a.Now())
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	return p, nil
}

// machine reads src's points into the command's private directory.
func (a *App) machine(src history.Source) (*history.Machine, error) {
	dir, err := a.pastDir()
	if err != nil {
		return nil, err
	}
	return &history.Machine{Source: src, Dir: dir, Open: a.pointOpener(src)}, nil
}

// tuiTimeMachine is the TUI's time machine: the source of the store of
// the global flags, its restores in the command's private directory
// (removed when the TUI ends).
func (a *App) tuiTimeMachine(context.Context) (*history.Machine, error) {
	src, err := a.source(a.globalTarget())
	if err != nil {
		return nil, err
	}
	return a.machine(src)
}

// closePast closes a past, saying what it could not remove.
func (a *App) closePast(p *history.Past) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Close(ctx); err != nil {
		a.Warnf("%v", err)
	}
}

// pointOpener opens a point made readable, read-only; the caller closes
// the store. A branch just made may not answer yet: retried a while
// (waits of 0.5 s doubling to 8 s); a restored file answers or never
// will.
func (a *App) pointOpener(src history.Source) history.Opener {
	policy := retry.Policy{Backoff: retry.Backoff{First: 500 * time.Millisecond, Max: 8 * time.Second}, Tries: 6}
	unreachable := func(err error) bool {
		return errors.Is(err, store.ErrUnreachable) && src.Kind() != history.KindLitestream && src.Kind() != history.KindRecord
	}
	return func(ctx context.Context, url, token string) (*store.Store, error) {
		var s *store.Store
		err := retry.Until(ctx, policy, unreachable, func() (err error) {
			s, err = a.Open(ctx, Opening{URL: url, Token: token, Access: ReadOnly, Own: true})
			return err
		})
		return s, err
	}
}

// OpenPast opens the store of the global flags as it was at --at,
// read-only, says on stderr which point of which source it is (and what
// a recording cannot know), and fixes the clock at the time asked (the
// point's own time for a txid) unless --now or --clock-offset set it:
// expiries are judged as they were then.
func (a *App) OpenPast() (*store.Store, error) {
	p, err := a.openPast(a.ctx, a.globalTarget(), a.Globals.At)
	if err != nil {
		return nil, err
	}
	at := p.choice.Asked.At
	if at == 0 {
		at = p.choice.Point.At
	}
	if a.Globals.Now == "" && a.Globals.ClockOffset == 0 {
		a.Clock.Fix(at)
	}
	a.past = p.choice.Point.Label(p.src.Kind()) + " · " + timeText(p.choice.Point.At)
	if p.choice.Index < 0 {
		a.past = timeText(p.choice.Point.At)
	}
	a.pastOf = a.globalTarget().name
	fmt.Fprintf(a.Stderr, "kvdeck: --at: %s; read-only\n", p.label())
	if p.src.Kind() == history.KindRecord {
		fmt.Fprintf(a.Stderr, "kvdeck: note: %s\n", p.src.Limits())
	}
	return p.s, nil
}

// splitPast splits a diff side STORE@TIME: the store (a saved name, a
// URL or path, or empty for the store of the global flags) and the time.
// A side that names an existing file whole, or whose part after the last
// @ is no time, is not split.
func splitPast(arg string, now int64) (base, at string, ok bool) {
	i := strings.LastIndexByte(arg, '@')
	if i < 0 {
		return "", "", false
	}
	if _, err := os.Stat(arg); err == nil {
		return "", "", false
	}
	base, at = arg[:i], arg[i+1:]
	if _, err := history.ParseSpec(at, now); err != nil && !strings.HasPrefix(strings.ToLower(at), "txid:") && !strings.HasPrefix(strings.ToLower(at), "poll:") {
		return "", "", false
	}
	return base, at, true
}

// pastTargetOf resolves a diff side's store: empty is the store of the
// global flags, a name a saved store (its URL, token and history
// sources), anything else a URL or path (its recording, or --replica
// when it is the store of the global flags).
func (a *App) pastTargetOf(base, token string) (pastTarget, error) {
	if base == "" {
		return a.globalTarget(), nil
	}
	if storeName.MatchString(base) {
		if _, err := os.Stat(base); err != nil {
			url, tok, _, name, err := copySide(a, "side", base, token)
			if err != nil {
				return pastTarget{}, err
			}
			cfg, err := loadConfig(a)
			if err != nil {
				return pastTarget{}, err
			}
			conf := cfg.Stores[name]
			return pastTarget{name: name, url: url, token: tok, conf: &conf}, nil
		}
	}
	t := pastTarget{name: store.RedactURL(base), url: base, token: token}
	if g, _ := a.Globals.ResolveDB(a.Env); g == base {
		t.replica = a.Globals.Replica
	}
	return t, nil
}

// openPastSide opens a diff side STORE@TIME and streams its rows.
func openPastSide(ctx context.Context, app *App, name, base, at, token string, prefix codec.Key) (iter.Seq2[diffRow, error], error) {
	t, err := app.pastTargetOf(base, token)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p, err := app.openPast(ctx, t, at)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	fmt.Fprintf(app.Stderr, "kvdeck: %s is %s at %s\n", name, t.name, p.label())
	return storeRows(ctx, name, p.s, prefix), nil
}
