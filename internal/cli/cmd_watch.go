package cli

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/changefeed"
	"kvdeck/internal/retry"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// WatchCmd prints the changes of keys and prefixes as they happen.
type WatchCmd struct {
	Keys     []string      `arg:"" name:"key" help:"Keys to watch; each also watches the keys under it (a prefix) unless --exact."`
	Exact    bool          `name:"exact" help:"Watch only the keys given, not the keys under them."`
	Once     bool          `name:"once" help:"Wait for the next change, print it and exit."`
	Interval time.Duration `name:"interval" placeholder:"DURATION" default:"1s" help:"How often to poll the store (at least 10ms)."`
}

// Help says what a watch sees and what it cannot.
func (c *WatchCmd) Help() string {
	return `Prints one line per change of the watched rows until interrupted (Ctrl-C
exits with 130): a JSON object by default, a text line with -o text.

  change  "set", "delete" or "expire"
  key     the key (tagged JSON; null and "hex" for a key that does not decode)
  old     the row as kvdeck last saw it (value, versionstamp, expiresAt),
          null when it saw none
  new     the row now (null after a delete or an expiry)
  seen    when kvdeck noticed it (epoch ms, the store's clock)

Sets come in versionstamp order. The store stamps sets only: a delete is
noticed when a re-read of the rows kvdeck saw misses one, an expiry when
the clock (--now, --clock-offset) passes a row's expiry. A watch polls
(--interval): a row set and deleted between two polls is never seen, and
a row set twice shows its last value once. A row another program
rewrote with a ver that is no stamp is not in the feed: its set is noticed
by the re-read below. Watching a prefix keeps the
key and stamp of each live row it saw, and old values up to 4 KiB each and
32 MiB in all (beyond: "unkept"); a poll re-reads a bounded batch of
the rows in turn to find deletions (16 on a file, 500 over a server), so a
delete in a large prefix is noticed within rows/batch polls. On a
rollback-journal file without an index on ver, sets are found by a walk
of the table paced to protect the service's commits (kvdeck index add).
When the store stops answering, the watch retries with backoff (0.5 s up
to 30 s, said on stderr) and misses no set or delete it can still see.`
}

// DefaultJSON makes watch print JSON lines unless -o text is given.
func (c *WatchCmd) DefaultJSON() bool { return true }

// watchRow is a row in a watch line.
type watchRow struct {
	Value        json.RawMessage `json:"value"`
	Versionstamp string          `json:"versionstamp"`
	ExpiresAt    *int64          `json:"expiresAt"`
	Error        string          `json:"error,omitempty"`
	Malformed    string          `json:"malformed,omitempty"`
	// Unkept says why Value is null: the watch did not keep the old
	// value (watchValueBudget).
	Unkept string `json:"unkept,omitempty"`
	raw    bool   // Value is a JSON string of text that is not JSON
}

// watchEvent is one line of watch.
type watchEvent struct {
	Change string     `json:"change"`
	Key    *codec.Key `json:"key"`
	Hex    *string    `json:"hex,omitempty"`
	Old    *watchRow  `json:"old"`
	New    *watchRow  `json:"new"`
	Seen   int64      `json:"seen"`
	// raw and cur are the key and the row now (nil: none) as the store
	// holds them, for kvdeck record.
	raw []byte
	cur *store.Entry
}

// watcher is the state of one watch: the change feed's consumer
// (internal/changefeed) over the rows seen under the watched prefixes,
// kept on disk (changefeed.DiskRows): the heap stays bounded whatever
// the prefix holds.
type watcher struct {
	s        *store.Store
	prefixes []codec.Key
	feed     *changefeed.Consumer
	seen     *changefeed.DiskRows
	paced    bool // the feed was walked at a pace (said once)
	// base, when set, is given every row start reads (kvdeck record
	// keeps them as its first point).
	base func(store.Entry) error
}

// The values of the rows seen that a watch keeps, to show them as old
// values: at most watchValueMax bytes each and watchValueBudget in all.
// The keys and stamps of every row seen are kept on disk (a deletion
// names the row); an old value beyond the budget is shown as null with
// "unkept" saying why. Before the bound a watch of a 350k-row prefix
// held 0.5 GB; with the values bounded, 105 MB at 200k rows.
const (
	watchValueMax    = 4 << 10
	watchValueBudget = 32 << 20
)

// newWatcher is a watch of prefixes on s (exact: of those keys only),
// its rows seen in a temporary file closed by close.
func newWatcher(s *store.Store, prefixes []codec.Key, exact bool) (*watcher, error) {
	seen, err := changefeed.NewDiskRows(watchValueMax, watchValueBudget)
	if err != nil {
		return nil, fmt.Errorf("a temporary file for the rows seen: %w", err)
	}
	w := &watcher{s: s, prefixes: prefixes, feed: changefeed.New(seen), seen: seen}
	if exact {
		w.feed.Exact = map[string]bool{}
		for _, k := range prefixes {
			w.feed.Exact[string(codec.MustEncode(k))] = true
		}
	}
	return w, nil
}

// close removes the temporary file of the rows seen.
func (w *watcher) close() { w.seen.Close() }

// Run reads what is there, then polls until interrupted (or, with --once,
// until a change).
func (c *WatchCmd) Run(app *App) error {
	if c.Interval < 10*time.Millisecond {
		return fmt.Errorf("--interval %s: must be at least 10ms", c.Interval)
	}
	var prefixes []codec.Key
	for _, text := range c.Keys {
		k, err := ParseKey("KEY", text)
		if err != nil {
			return err
		}
		prefixes = append(prefixes, k)
	}
	s, err := app.Open(app.Context(), Opening{})
	if err != nil {
		return err
	}
	w, err := newWatcher(s, prefixes, c.Exact)
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer w.close()
	ctx := app.Context()
	if err := w.start(ctx); err != nil {
		return interrupted(ctx, err)
	}
	w.oddStamps(ctx, app.Stderr)
	what := "prefix"
	if c.Exact {
		what = "key"
	}
	if len(w.prefixes) > 1 {
		what += "es"
		if c.Exact {
			what = "keys"
		}
	}
	fmt.Fprintf(app.Stderr, "kvdeck: watching %d %s (%s now), polling every %s; Ctrl-C stops\n", len(w.prefixes), what, plural(int64(w.seen.Len()), "live row"), c.Interval)
	return c.loop(ctx, app, w)
}

// Backoff of a watch whose store does not answer (a server restarting):
// the first retry after watchRetryFirst, each next one twice as late, at
// most watchRetryMax apart.
const (
	watchRetryFirst = 500 * time.Millisecond
	watchRetryMax   = 30 * time.Second
)

// pollBackoff is the backoff of a watch's (or record's) polls.
func pollBackoff() *retry.Backoff { return &retry.Backoff{First: watchRetryFirst, Max: watchRetryMax} }

// loop polls every interval and prints the changes. A poll that fails
// (the server went away) is retried with backoff, said on stderr; the
// watch keeps its position, so a set the store still holds is printed
// when it answers again, and a row seen then gone is a delete.
func (c *WatchCmd) loop(ctx context.Context, app *App, w *watcher) error {
	timer := time.NewTimer(c.Interval)
	defer timer.Stop()
	said := false
	retries := pollBackoff()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
		events, err := w.poll(ctx, app.Now())
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if c.Once && len(events) > 1 {
			events = events[:1] // the next change, one line
		}
		for _, ev := range events {
			app.Out.Result(ev, ev.text())
		}
		if w.paced && !said {
			said = true
			fmt.Fprintf(app.Stderr, "kvdeck: this rollback-journal file was being written through every read kvdeck tried without locks, and it has no index on ver: changes are found by a walk of the table paced to %d rows a poll, so that the service's commits are not blocked; `kvdeck index add` makes them immediate\n", store.ChangesWindowPaced)
		}
		if err := app.Out.Flush(); err != nil {
			return fmt.Errorf("write output: %w", err)
		}
		if c.Once && len(events) > 0 {
			return nil
		}
		timer.Reset(backoff(app, "watch", err, retries, c.Interval))
	}
}

// backoff is the wait before the next poll of what (watch, record): the
// interval while the store answers; after a failure the next of retries
// (watchRetryFirst, doubling up to watchRetryMax), each said on stderr,
// and said again when the store answers.
func backoff(app *App, what string, err error, retries *retry.Backoff, interval time.Duration) time.Duration {
	if err != nil {
		wait := retries.Next()
		fmt.Fprintf(app.Stderr, "kvdeck: %s: the store did not answer (%s); retrying in %s\n", what, usertext.Sanitize(err.Error()), wait)
		return wait
	}
	if retries.Failed() {
		fmt.Fprintf(app.Stderr, "kvdeck: %s: the store answers again\n", what)
		retries.Reset()
	}
	return interval
}

// interrupted returns ctx's error when ctx ended (the store's error then
// only says so in other words), else err.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// start reads the feed's position, then the live rows under the watched
// prefixes. A row written in between is read here and again by the first
// poll, which skips it (same stamp).
func (w *watcher) start(ctx context.Context) error {
	// Where seq stands, without counting rows: nothing is stamped after
	// MaxInt64.
	p, err := w.s.Changes(ctx, store.ChangesOptions{After: math.MaxInt64})
	if err != nil {
		return err
	}
	w.feed.Start(p, p.Version.Seq)
	w.seen.Begin() // one transaction of the temporary database for all
	defer w.seen.Commit()
	if w.feed.Exact != nil {
		entries, err := w.s.GetMany(ctx, w.prefixes)
		for _, e := range entries {
			if e != nil {
				w.feed.See(*e)
			}
		}
		return errors.Join(err, w.seen.Err())
	}
	for _, p := range w.prefixes {
		err := w.s.Scan(ctx, store.ListOptions{Prefix: p, Unbounded: len(p) == 0}, func(e store.Entry) error {
			w.feed.See(e)
			if w.base != nil && w.seen.Err() == nil {
				return w.base(e)
			}
			return w.seen.Err()
		})
		if err != nil {
			return err
		}
	}
	return w.seen.Err()
}

// Rows seen that a poll re-reads to find deletions (deletes issue no
// stamp), in turn, in the one statement (one request) that reads the
// feed: a watch of any size costs a bounded read per poll, and a deleted
// row is noticed within known/batch polls. On a file the batch is small,
// since a rollback-journal reader blocks a writer's commit while it
// reads, and a poll rechecks only when something was committed since.
const (
	watchRecheckFile   = 16
	watchRecheckRemote = 500
)

// watchPageRows is the most rows a page of a poll asks for: the page's
// byte budget (store.ChangesOptions.MaxBytes, a few MB) is the real cap.
// Without an index on ver every page walks the whole table, so a burst of
// changes is read in as few pages as those bytes allow, not a walk per
// thousand changes; a poll holds all its pages' events anyway.
const watchPageRows = 100_000

// poll reads the changes since the last poll, page after page, and
// returns them in the order watch prints them (watchOrder). On an error
// it returns the changes it had read (the position is past them) with
// the error.
func (w *watcher) poll(ctx context.Context, now int64) ([]watchEvent, error) {
	batch := watchRecheckFile
	if w.s.Info().Transport.Remote() {
		batch = watchRecheckRemote
	}
	var events []changefeed.Event
	req := w.feed.Next(batch)
	for {
		page, err := w.s.Changes(ctx, req.Options(w.prefixes, watchPageRows))
		if err != nil {
			// What was read stays read: the position moved past it.
			return watchEvents(events), err
		}
		events = append(events, w.feed.Apply(page, req, now)...)
		if page.Walk != nil {
			w.paced = true
			break // the walk goes on at the next poll
		}
		if !page.More {
			break
		}
		req = w.feed.Continue()
	}
	return watchEvents(events), w.seen.Err()
}

// watchOrder ranks a poll's lines: expiries, then deletions, then sets
// in stamp order, then the sets a re-read found that no stamp announced.
func watchOrder(ev changefeed.Event) int {
	switch {
	case ev.Kind == changefeed.Expire:
		return 0
	case ev.Kind == changefeed.Delete:
		return 1
	case ev.Odd != "":
		return 3
	}
	return 2
}

// watchEvents are the lines of a poll's events, in watchOrder.
func watchEvents(events []changefeed.Event) []watchEvent {
	slices.SortStableFunc(events, func(a, b changefeed.Event) int { return watchOrder(a) - watchOrder(b) })
	out := make([]watchEvent, 0, len(events))
	for _, ev := range events {
		out = append(out, newWatchEvent(ev))
	}
	return out
}

// newWatchEvent is the line of ev.
func newWatchEvent(ev changefeed.Event) watchEvent {
	e := ev.Entry()
	out := watchEvent{Change: ev.Kind.String(), New: newWatchRow(ev.New), Seen: ev.At, raw: ev.Raw, cur: ev.New}
	if ev.Old != nil {
		out.Old = newWatchRow(&ev.Old.Entry)
		if ev.Old.Unkept {
			out.Old.Value, out.Old.raw = json.RawMessage("null"), false
			out.Old.Unkept = "the watch keeps old values up to 4 KiB each and 32 MiB in all"
		}
	}
	if e.KeyErr == nil {
		k := e.Key
		out.Key = &k
	} else {
		h := hex.EncodeToString(e.Raw)
		out.Hex = &h
	}
	return out
}

func newWatchRow(e *store.Entry) *watchRow {
	if e == nil {
		return nil
	}
	value, ok := jsonValue(e.Value)
	return &watchRow{Value: value, Versionstamp: e.Versionstamp(), ExpiresAt: e.ExpiresAt, Error: decodeError(*e), Malformed: e.Malformed, raw: !ok}
}

// text is the line of -o text; its times have a fixed width
// (usertext.FormatTimeFixed), so the lines' columns stay put:
//
//	2026-01-02T00:00:01.000Z  set     ["dwk_lease", "C", "ab"]  v=…03 -> v=…07  {"holder":"a"} -> {"holder":"b"}
//	2026-01-02T00:00:02.250Z  delete  ["dwk_lease", "C", "ab"]  v=…07  was {"holder":"b"}
//
// A value longer than watchTextValue characters is cut there, with "…"
// and its size.
func (ev watchEvent) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %-6s  ", usertext.FormatTimeFixed(ev.Seen), ev.Change)
	if ev.Key != nil {
		b.WriteString(codec.Format(*ev.Key))
	} else {
		b.WriteString("0x" + *ev.Hex)
	}
	b.WriteString("  ")
	switch {
	case ev.New != nil && ev.Old != nil:
		fmt.Fprintf(&b, "v=%s -> v=%s  %s -> %s", ev.Old.Versionstamp, ev.New.Versionstamp, valueText(ev.Old), rowText(ev.New))
	case ev.New != nil:
		fmt.Fprintf(&b, "new v=%s  %s", ev.New.Versionstamp, rowText(ev.New))
	default:
		fmt.Fprintf(&b, "v=%s  was %s", ev.Old.Versionstamp, rowText(ev.Old))
	}
	return b.String()
}

// rowText is a row's value (raw:"…" when it is not JSON), its expiry and
// what is wrong with it.
func rowText(r *watchRow) string {
	var b bytes.Buffer
	b.WriteString(valueText(r))
	if r.ExpiresAt != nil {
		b.WriteString("  expires=" + usertext.FormatTimeFixed(*r.ExpiresAt))
	}
	if msg := strings.Trim(r.Error+"; "+r.Malformed, "; "); msg != "" {
		b.WriteString("  error: " + msg)
	}
	return b.String()
}

// watchTextValue is how many characters of a value a text line shows.
const watchTextValue = 80

// valueText is a row's value for a text line (raw:"…" when it is not
// JSON), cut after watchTextValue characters: "…" and the size follow.
func valueText(r *watchRow) string {
	if r.Unkept != "" {
		return "(value not kept)"
	}
	v := string(r.Value)
	if r.raw {
		v = "raw:" + v
	}
	if runes := []rune(v); len(runes) > watchTextValue {
		v = fmt.Sprintf("%s… (%d bytes)", string(runes[:watchTextValue]), len(r.Value))
	}
	return v
}
