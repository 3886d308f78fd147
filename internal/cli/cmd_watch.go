package cli

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"kvdeck/codec"
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

// watcher is the state of one watch: the position in the change feed and
// the live rows seen under the watched prefixes, by raw key.
type watcher struct {
	s        *store.Store
	prefixes []codec.Key
	exact    map[string]bool // raw keys, with --exact
	after    int64
	afterKey []byte
	mark     int64              // ChangesPage.Mark of the last page
	walk     *store.ChangesWalk // a paced walk under way
	paced    bool               // the feed was walked at a pace (said once)
	// seen holds the live rows seen, by raw key, in a private temporary
	// database (cmd_watch_seen.go): the heap stays bounded whatever the
	// prefix holds. It keeps at most watchValueBudget bytes of values.
	// Rechecks go round it in key order.
	seen *seenRows
	// base, when set, is given every row start reads (kvdeck record
	// keeps them as its first point).
	base func(store.Entry) error
	// due counts the rows seen still to re-read since a commit was last
	// noticed: until it is zero a poll rechecks even when nothing was
	// committed since the last one (the mark says nothing of the rows
	// the last batches did not hold).
	due int
}

// The values of the rows seen that a watch keeps, to show them as old
// values: at most watchValueMax bytes each and watchValueBudget in all.
// The keys and stamps of every row seen are kept on disk (seenRows; a
// deletion names the row); an old value beyond the budget is shown as
// null with "unkept" saying why. Before the bound a watch of a 350k-row
// prefix held 0.5 GB; with the values bounded, 105 MB at 200k rows.
const (
	watchValueMax    = 4 << 10
	watchValueBudget = 32 << 20
)

// see records e as seen, keeping its value while the budget allows.
func (w *watcher) see(e store.Entry) {
	w.seen.put(e, watchValueMax, watchValueBudget)
}

// drop forgets the row seen at raw.
func (w *watcher) drop(raw string) {
	w.seen.del(raw)
}

// old returns the row seen at raw as an old row for an event; nil when
// none was seen.
func (w *watcher) old(raw string) *watchRow {
	e, unkept, _, had := w.seen.get(raw)
	if !had {
		return nil
	}
	r := newWatchRow(&e)
	if unkept {
		r.Value, r.raw = json.RawMessage("null"), false
		r.Unkept = "the watch keeps old values up to 4 KiB each and 32 MiB in all"
	}
	return r
}

// Run reads what is there, then polls until interrupted (or, with --once,
// until a change).
func (c *WatchCmd) Run(app *App) error {
	if c.Interval < 10*time.Millisecond {
		return fmt.Errorf("--interval %s: must be at least 10ms", c.Interval)
	}
	seen, err := newSeenRows()
	if err != nil {
		return fmt.Errorf("watch: a temporary file for the rows seen: %w", err)
	}
	defer seen.close()
	w := &watcher{seen: seen}
	if c.Exact {
		w.exact = map[string]bool{}
	}
	for _, text := range c.Keys {
		k, err := ParseKey("KEY", text)
		if err != nil {
			return err
		}
		w.prefixes = append(w.prefixes, k)
		if w.exact != nil {
			w.exact[string(codec.MustEncode(k))] = true
		}
	}
	s, err := app.Open()
	if err != nil {
		return err
	}
	w.s = s
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
	fmt.Fprintf(app.Stderr, "kvdeck: watching %d %s (%s now), polling every %s; Ctrl-C stops\n", len(w.prefixes), what, plural(int64(w.seen.n), "live row"), c.Interval)
	return c.loop(ctx, app, w)
}

// Backoff of a watch whose store does not answer (a server restarting):
// the first retry after watchRetryFirst, each next one twice as late, at
// most watchRetryMax apart.
const (
	watchRetryFirst = 500 * time.Millisecond
	watchRetryMax   = 30 * time.Second
)

// loop polls every interval and prints the changes. A poll that fails
// (the server went away) is retried with backoff, said on stderr; the
// watch keeps its position, so a set the store still holds is printed
// when it answers again, and a row seen then gone is a delete.
func (c *WatchCmd) loop(ctx context.Context, app *App, w *watcher) error {
	timer := time.NewTimer(c.Interval)
	defer timer.Stop()
	said := false
	var retry time.Duration // 0: the last poll answered
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
		var next time.Duration
		next, retry = backoff(app, "watch", err, retry, c.Interval)
		timer.Reset(next)
	}
}

// backoff is the wait before the next poll of what (watch, record): the
// interval while the store answers; after a failure watchRetryFirst,
// doubling up to watchRetryMax, each said on stderr, and said again when
// the store answers. retry is the last wait after a failure (0: none).
func backoff(app *App, what string, err error, retry, interval time.Duration) (next, retried time.Duration) {
	switch {
	case err != nil:
		retry = min(max(2*retry, watchRetryFirst), watchRetryMax)
		fmt.Fprintf(app.Stderr, "kvdeck: %s: the store did not answer (%s); retrying in %s\n", what, usertext.Sanitize(err.Error()), retry)
		return retry, retry
	case retry > 0:
		fmt.Fprintf(app.Stderr, "kvdeck: %s: the store answers again\n", what)
	}
	return interval, 0
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
	w.after, w.mark = p.Version.Seq, p.Mark
	w.seen.begin() // one transaction of the temporary database for all
	defer w.seen.commit()
	if w.exact != nil {
		entries, err := w.s.GetMany(ctx, w.prefixes)
		for _, e := range entries {
			if e != nil {
				w.see(*e)
			}
		}
		return errors.Join(err, w.seen.err)
	}
	for _, p := range w.prefixes {
		err := w.s.Scan(ctx, store.ListOptions{Prefix: p, Unbounded: len(p) == 0}, func(e store.Entry) error {
			w.see(e)
			if w.base != nil && w.seen.err == nil {
				return w.base(e)
			}
			return w.seen.err
		})
		if err != nil {
			return err
		}
	}
	return w.seen.err
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

// poll reads the changes since the last poll: expiries first (the clock
// passed a seen row's expiry), then deletions (a seen row is gone), then
// sets in stamp order, then the sets a recheck found that no stamp
// announced (rechecks). On an error it returns the changes it had read
// (the position is past them) with the error.
func (w *watcher) poll(ctx context.Context, now int64) ([]watchEvent, error) {
	expired := w.expire(now)
	batch := watchRecheckFile
	if w.s.Info().Transport.Remote() {
		batch = watchRecheckRemote
	}
	inline := w.recheckBatch(batch)
	mark := w.mark
	if w.due > 0 {
		mark = 0 // recheck whatever the mark says
	}
	opts := store.ChangesOptions{After: w.after, AfterKey: w.afterKey, Prefixes: w.prefixes, Limit: 1000, Recheck: inline, Mark: mark, Walk: w.walk}
	var sets []watchEvent
	var rechecked []*store.Entry
	readAt := now // the store's clock at the recheck
	fresh := map[string]bool{}
	for first := true; ; first = false {
		page, err := w.s.Changes(ctx, opts)
		if err != nil {
			// What was read stays read: the position moved past it.
			return append(expired, sets...), err
		}
		if first {
			rechecked, readAt = page.Rechecked, page.Now
			w.noteMark(page, len(inline))
		}
		w.mark, w.walk = page.Mark, page.Walk
		if page.Walk != nil {
			w.paced = true
			break // the walk goes on at the next poll
		}
		w.after, w.afterKey = page.Next, page.NextKey
		for _, e := range page.Entries {
			ev, ok := w.change(e, now)
			if ok {
				fresh[string(e.Raw)] = true
			}
			if ev != nil && ev.Change == "expire" {
				expired = append(expired, *ev)
			} else if ev != nil {
				sets = append(sets, *ev)
			}
		}
		if !page.More {
			break
		}
		opts.After, opts.AfterKey, opts.Recheck, opts.Walk = page.Next, page.NextKey, nil, nil
	}
	gone, deleted, odd := w.rechecks(inline, rechecked, fresh, now, readAt)
	return append(append(append(append(expired, gone...), deleted...), sets...), odd...), w.seen.err
}

// expire forgets the rows seen whose expiry the clock passed, in key
// order, and returns their events.
func (w *watcher) expire(now int64) []watchEvent {
	var out []watchEvent
	for _, raw := range w.seen.expired(now) { // key order: stable output
		e, _, _, _ := w.seen.get(raw)
		old := w.old(raw)
		out = append(out, newWatchEvent("expire", &e, old, nil, now))
		w.drop(raw)
	}
	return out
}

// noteMark counts the rows due for a recheck after a page's head: a
// commit since the last poll makes every row seen due again.
func (w *watcher) noteMark(page store.ChangesPage, inline int) {
	if page.Mark != w.mark {
		w.due = w.seen.n
	}
	if len(page.Rechecked) > 0 {
		w.due -= inline
	}
}

// change takes a row of the feed: its event (nil when there is none to
// print) and whether it was news (a row start had read is not).
func (w *watcher) change(e store.Entry, now int64) (*watchEvent, bool) {
	raw := string(e.Raw)
	if w.exact != nil && !w.exact[raw] {
		return nil, false
	}
	seen, _, _, had := w.seen.get(raw)
	if had && seen.Ver == e.Ver {
		return nil, false // read by start already
	}
	old := w.old(raw)
	if !e.Live(now) {
		// Written already expired: nobody could read it.
		if !had {
			return nil, true
		}
		ev := newWatchEvent("expire", &seen, old, nil, now)
		w.drop(raw)
		return &ev, true
	}
	ev := newWatchEvent("set", &e, old, &e, now)
	w.see(e)
	return &ev, true
}

// rechecks compares the rows rechecked with what was seen. A row seen
// that is gone, and was not set meanwhile (fresh), expired when the
// store's clock at the recheck (readAt, which runs after now) had passed
// its expiry, else was deleted. A row still there whose stamp changed to
// one the feed can never carry (none after the position: another
// program's ver that is no whole number) was set outside the feed
// (odd). It returns the expiries, the deletions and those sets.
func (w *watcher) rechecks(inline [][]byte, rechecked []*store.Entry, fresh map[string]bool, now, readAt int64) (expired, deleted, odd []watchEvent) {
	for i, e := range rechecked {
		raw := string(inline[i])
		seen, _, _, had := w.seen.get(raw)
		if !had || fresh[raw] || e != nil && (e.Ver == seen.Ver || e.Ver > w.after) {
			continue
		}
		old := w.old(raw)
		switch {
		case e != nil:
			odd = append(odd, newWatchEvent("set", e, old, e, now))
			w.see(*e)
			continue
		case seen.Live(readAt):
			deleted = append(deleted, newWatchEvent("delete", &seen, old, nil, now))
		default:
			expired = append(expired, newWatchEvent("expire", &seen, old, nil, readAt))
		}
		w.drop(raw)
	}
	return expired, deleted, odd
}

func (w *watcher) recheckBatch(n int) [][]byte {
	return w.seen.batch(n)
}

// newWatchEvent is the event of the row at e's key: old as the watch saw
// it (nil: none), cur the row now (nil: none).
func newWatchEvent(change string, e *store.Entry, old *watchRow, cur *store.Entry, seen int64) watchEvent {
	ev := watchEvent{Change: change, Old: old, New: newWatchRow(cur), Seen: seen, raw: e.Raw, cur: cur}
	if e.KeyErr == nil {
		k := e.Key
		ev.Key = &k
	} else {
		h := hex.EncodeToString(e.Raw)
		ev.Hex = &h
	}
	return ev
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
