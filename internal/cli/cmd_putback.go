package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"kvdeck/codec"
	"kvdeck/internal/journal"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// PutBackCmd puts keys back as they were at --at.
type PutBackCmd struct {
	Keys []string `arg:"" name:"key" help:"Keys to put back as they were at --at TIME."`
	Yes  bool     `name:"yes" help:"Write without asking (scripts). Without it put-back shows each key now and then and asks on a terminal, and refuses when stdin is not one."`
}

// Help says what is written and what is checked.
func (c *PutBackCmd) Help() string {
	return `kvdeck --at TIME put-back KEY... reads each KEY in the store as it was at
TIME (the point --at picks, as for any command) and as it is now, and
writes back, in one commit, the row it had then (its value and expiry,
under a new versionstamp), or deletes it where it had none. A key that
is now as it was then is left alone; when all are, nothing is written.

Each key is checked against the stamp it has now (the one shown): if
another writer changed it since, the whole put-back is refused, the key
is named, and nothing is written. The put-back is one entry of the
write journal: kvdeck undo reverts it, checked the same way.`
}

// Writes names the write for the read-only refusal.
func (c *PutBackCmd) Writes() string { return "put-back" }

// putBackKey is one key of the preview in -o json.
type putBackKey struct {
	Key  codec.Key `json:"key"`
	Now  *watchRow `json:"now"`
	Then *watchRow `json:"then"`
}

// putBackJSON is the result line.
type putBackJSON struct {
	OK           bool    `json:"ok"`
	Keys         int     `json:"keys"`
	Same         int     `json:"same"`
	Versionstamp *string `json:"versionstamp"`
	At           string  `json:"at"`
}

// Run reads the keys then and now, shows the plan, asks, and restores.
func (c *PutBackCmd) Run(app *App) error {
	if app.Globals.At == "" {
		return errors.New("put-back puts keys back as they were at a point: give --at TIME (kvdeck --at -10m put-back KEY)")
	}
	keys, raws, err := distinctKeys(c.Keys)
	if err != nil {
		return err
	}
	ctx := app.Context()
	past, err := app.openPast(ctx, app.globalTarget(), app.Globals.At)
	if err != nil {
		return err
	}
	fmt.Fprintf(app.Stderr, "kvdeck: --at: %s\n", past.label())
	live, err := app.Open(app.Context(), Opening{Write: true, Create: MustExist})
	if err != nil {
		return err
	}
	ops, same, err := putBackPlan(ctx, app, past.s, live, keys, raws)
	if err != nil {
		return err
	}
	at := past.choice.Text(past.src.Kind())
	if len(ops) == 0 {
		app.Out.Result(putBackJSON{OK: true, Same: same, At: at}, fmt.Sprintf("nothing to put back: %s as it was at %s", plural(int64(same), "key"), at))
		return nil
	}
	if !c.Yes {
		if err := c.confirm(app, len(ops)); err != nil {
			return err
		}
	}
	return putBack(ctx, app, live, ops, same, at)
}

// putBackPlan reads each key then (in past) and now (in live), says the
// keys that are as they were, and shows and returns the restores of the
// others, each checked against the stamp it has now.
func putBackPlan(ctx context.Context, app *App, past, live *store.Store, keys []codec.Key, raws [][]byte) (ops []store.RestoreOp, same int, err error) {
	for i, raw := range raws {
		then, err := physical(ctx, past, raw)
		if err != nil {
			return nil, 0, err
		}
		now, err := physical(ctx, live, raw)
		if err != nil {
			return nil, 0, err
		}
		if sameRaw(then, now) || (then != nil && now != nil && string(then.Value) == string(now.Value) && sameExpiry(then, now)) {
			same++
			textOnly(app, "= %s  as it was: %s", usertext.Sanitize(codec.Format(keys[i])), rawRowText(now))
			continue
		}
		op := store.RestoreOp{Key: raw, Put: then}
		if now != nil {
			op.ExpectVer = now.Ver
		}
		ops = append(ops, op)
		app.Out.Result(putBackKey{Key: keys[i], Now: rawWatchRow(now), Then: rawWatchRow(then)},
			fmt.Sprintf("~ %s  now %s  ->  then %s", usertext.Sanitize(codec.Format(keys[i])), rawRowText(now), thenText(then)))
	}
	return ops, same, nil
}

// putBack writes ops in one commit and says so, or names the keys that
// changed since they were read (nothing is written then).
func putBack(ctx context.Context, app *App, live *store.Store, ops []store.RestoreOp, same int, at string) error {
	res, err := live.Restore(ctx, ops)
	if err != nil {
		return err
	}
	if !res.OK {
		msgs := make([]string, len(res.Conflicts))
		for i, cf := range res.Conflicts {
			msgs[i] = journal.ConflictText(cf)
		}
		return NotDone("put-back refused, nothing was written: %s changed since it was read: %s", plural(int64(len(res.Conflicts)), "key"), strings.Join(msgs, "; "))
	}
	text := fmt.Sprintf("put back %s as at %s", plural(int64(len(ops)), "key"), at)
	if res.Versionstamp != "" {
		text += " (new versionstamp " + res.Versionstamp + ")"
	}
	app.Out.Result(putBackJSON{OK: true, Keys: len(ops), Same: same, Versionstamp: stampOrNull(res.Versionstamp), At: at}, text+"; kvdeck undo reverts it")
	return nil
}

// distinctKeys parses the keys, refusing one given twice.
func distinctKeys(texts []string) ([]codec.Key, [][]byte, error) {
	keys := make([]codec.Key, 0, len(texts))
	raws := make([][]byte, 0, len(texts))
	seen := map[string]bool{}
	for _, text := range texts {
		k, err := ParseKey("KEY", text)
		if err != nil {
			return nil, nil, err
		}
		raw := codec.MustEncode(k)
		if seen[string(raw)] {
			return nil, nil, fmt.Errorf("KEY %s is given twice", usertext.Sanitize(codec.Format(k)))
		}
		seen[string(raw)] = true
		keys, raws = append(keys, k), append(raws, raw)
	}
	return keys, raws, nil
}

// physical is the physical row at raw (expired or not), nil when none.
func physical(ctx context.Context, s *store.Store, raw []byte) (*store.RawRow, error) {
	e, found, err := s.GetRaw(ctx, raw)
	if err != nil || !found {
		return nil, err
	}
	return &store.RawRow{Key: raw, Value: e.Value, Ver: e.Ver, ExpiresAt: e.ExpiresAt}, nil
}

// sameExpiry reports whether two rows expire alike.
func sameExpiry(a, b *store.RawRow) bool {
	if (a.ExpiresAt == nil) != (b.ExpiresAt == nil) {
		return false
	}
	return a.ExpiresAt == nil || *a.ExpiresAt == *b.ExpiresAt
}

// thenText is the row put back.
func thenText(r *store.RawRow) string {
	if r == nil {
		return "no row (deleted)"
	}
	return rowText(rawWatchRow(r))
}

// confirm asks on a terminal; elsewhere it refuses (exit 2) so that a
// script never writes without --yes.
func (c *PutBackCmd) confirm(app *App, n int) error {
	if !app.terminal(app.Stdin) {
		return fmt.Errorf("put-back asks before it writes, and stdin is not a terminal: pass --yes to put back %s", plural(int64(n), "key"))
	}
	return askYes(app, fmt.Sprintf("Put back %s?", plural(int64(n), "key")), "nothing put back")
}
