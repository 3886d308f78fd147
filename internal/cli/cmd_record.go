package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/history"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// RecordCmd follows the store's changes into its local history.
type RecordCmd struct {
	Interval time.Duration `name:"interval" placeholder:"DURATION" default:"1s" help:"How often to poll the store (at least 10ms)."`
	MaxAge   time.Duration `name:"max-age" placeholder:"DURATION" default:"168h" help:"Keep the points of the last DURATION (0: no age bound); older ones are folded into the first kept."`
	MaxMiB   int64         `name:"max-mib" placeholder:"N" default:"256" help:"Keep the history file under N MiB (0: no size bound), folding the oldest points."`
}

// Help says what is recorded and what is not.
func (c *RecordCmd) Help() string {
	return `Records the store's changes, as kvdeck watch sees them, into a history
file of its own: $XDG_STATE_HOME/kvdeck/history/<store>.history.db
(~/.local/state/kvdeck/... without XDG_STATE_HOME), 0600 in a 0700
directory. The first poll keeps every row; each later poll that finds a
change keeps a point (its time, the store's seq, the rows that changed).
--at, diff @TIME and history read it when the store has no Litestream
replica, and say so. The store is only read, with watch's lock rules (a
rollback-journal file is read in small steps that never hold up the
service's commits).

What it cannot know: a row set and overwritten or deleted between two
polls; the moment of a delete (it is found when the key's re-read comes
round, a batch a poll); a sweep's removal of an expired row; anything
while record was not running (it resumes with a point marked as a gap,
where what changed meanwhile appears).

The file is bounded: points older than --max-age, then the oldest while
it is over --max-mib, are folded into the first point kept (the states
from there on stay exact). Ctrl-C stops it.`
}

// recordTrimEvery is how often the history file's bounds are enforced.
const recordTrimEvery = time.Minute

// Run records until interrupted.
func (c *RecordCmd) Run(app *App) error {
	if c.Interval < 10*time.Millisecond {
		return fmt.Errorf("--interval %s: must be at least 10ms", c.Interval)
	}
	if c.MaxAge < 0 || c.MaxMiB < 0 {
		return errors.New("--max-age and --max-mib must not be negative")
	}
	if app.Globals.At != "" {
		return errors.New("record follows the store as it is now: it takes no --at")
	}
	ctx := app.Context()
	url, _ := app.Globals.ResolveDB(app.Env)
	s, err := app.Open(ctx, Opening{Access: ReadOnly})
	if err != nil {
		return err
	}
	rec, err := app.recording(url, true)
	if err != nil {
		return fmt.Errorf("record: the history file: %w", err)
	}
	had, err := rec.Points(ctx)
	if err != nil {
		return fmt.Errorf("record: %s: %w", rec.Path(), err)
	}
	w, err := newWatcher(s, []codec.Key{{}}, false)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	defer w.close()
	first, err := rec.Begin(ctx, app.Now(), true, len(had) > 0)
	if err != nil {
		return err
	}
	w.base = func(e store.Entry) error { return first.Set(ctx, rawOf(e)) }
	if err := w.start(ctx); err != nil {
		first.Rollback()
		return interrupted(ctx, err)
	}
	n, err := first.Commit(ctx, w.feed.After())
	if err != nil {
		return err
	}
	how := "a first point of " + plural(int64(w.seen.Len()), "row")
	if len(had) > 0 {
		how = fmt.Sprintf("resuming after %s: %s changed meanwhile (a gap: when is unknown)", timeText(had[len(had)-1].At), plural(int64(n), "row"))
	}
	fmt.Fprintf(app.Stderr, "kvdeck: recording %s into %s every %s (%s); Ctrl-C stops\n", store.RedactURL(url), rec.Path(), c.Interval, how)
	return c.loop(ctx, app, w, rec)
}

// loop polls every interval and keeps a point for each poll that found a
// change; a poll that fails is retried with watch's backoff.
func (c *RecordCmd) loop(ctx context.Context, app *App, w *watcher, rec *history.Recording) error {
	timer := time.NewTimer(c.Interval)
	defer timer.Stop()
	retries := pollBackoff()
	lastTrim := time.Time{}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
		if time.Since(lastTrim) >= recordTrimEvery {
			lastTrim = time.Now()
			if err := c.trim(ctx, app, rec); err != nil {
				return err
			}
		}
		now := app.Now()
		events, err := w.poll(ctx, now)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if len(events) > 0 {
			if perr := keepPoint(ctx, app, rec, now, w.feed.After(), events); perr != nil {
				return interrupted(ctx, perr)
			}
		}
		timer.Reset(backoff(app, "record", err, retries, c.Interval))
	}
}

// keepPoint writes a poll's changes as one point: sets as new versions,
// deletes as ends. An expiry changes nothing kept: the row stays in the
// store, dead by its expiry, until a sweep (which record does not see).
func keepPoint(ctx context.Context, app *App, rec *history.Recording, now, seq int64, events []watchEvent) error {
	p, err := rec.Begin(ctx, now, false, false)
	if err != nil {
		return err
	}
	for _, ev := range events {
		switch {
		case ev.Change == "set" && ev.cur != nil:
			err = p.Set(ctx, rawOf(*ev.cur))
		case ev.Change == "delete":
			err = p.Gone(ctx, ev.raw)
		}
		if err != nil {
			p.Rollback()
			return err
		}
	}
	n, err := p.Commit(ctx, seq)
	if err != nil || n == 0 {
		return err
	}
	app.Out.Result(map[string]any{"at": now, "seq": seq, "changed": n}, fmt.Sprintf("%s  seq %d  %s", usertext.FormatTimeFixed(now), seq, plural(int64(n), "row")+" changed"))
	return app.Out.Flush()
}

// trim enforces the history file's bounds and says when it cannot.
func (c *RecordCmd) trim(ctx context.Context, app *App, rec *history.Recording) error {
	res, err := rec.Trim(ctx, app.Now(), c.MaxAge.Milliseconds(), c.MaxMiB<<20)
	if err != nil {
		return fmt.Errorf("record: bounding %s: %w", rec.Path(), err)
	}
	if res.OverSize {
		app.Warnf("record: %s holds %d MiB with only its newest point left, over --max-mib %d: the store's rows alone need more", rec.Path(), res.Bytes>>20, c.MaxMiB)
	}
	return nil
}

// rawOf is an entry as a recording keeps it.
func rawOf(e store.Entry) store.RawRow {
	return store.RawRow{Key: e.Raw, Value: e.Value, Ver: e.Ver, ExpiresAt: e.ExpiresAt}
}
