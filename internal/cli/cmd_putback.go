package cli

import (
	"context"
	"errors"
	"fmt"

	"kvdeck/codec"
	"kvdeck/internal/history"
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
	plan, err := putBackPlan(ctx, app, past.s, live, keys, raws)
	if err != nil {
		return err
	}
	at := past.choice.Text(past.src.Kind())
	if len(plan.Ops) == 0 {
		app.Out.Result(putBackJSON{OK: true, Same: plan.Same(), At: at}, fmt.Sprintf("nothing to put back: %s as it was at %s", plural(int64(plan.Same()), "key"), at))
		return nil
	}
	if !c.Yes {
		if err := c.confirm(app, len(plan.Ops)); err != nil {
			return err
		}
	}
	return putBack(ctx, app, live, plan, at)
}

// putBackPlan reads each key then (in past) and now (in live), says the
// keys that are as they were, and shows the restores of the others
// (history.PlanPutBack: each checked against the stamp it has now).
func putBackPlan(ctx context.Context, app *App, past, live *store.Store, keys []codec.Key, raws [][]byte) (history.PutBackPlan, error) {
	thens := make([]*store.RawRow, len(raws))
	for i, raw := range raws {
		then, err := history.Physical(ctx, past, raw)
		if err != nil {
			return history.PutBackPlan{}, err
		}
		thens[i] = then
	}
	plan, err := history.PlanPutBack(ctx, live, raws, thens)
	if err != nil {
		return history.PutBackPlan{}, err
	}
	for i, k := range plan.Keys {
		if k.Same {
			textOnly(app, "= %s  as it was: %s", usertext.Sanitize(codec.Format(keys[i])), rawRowText(k.Now))
			continue
		}
		app.Out.Result(putBackKey{Key: keys[i], Now: rawWatchRow(k.Now), Then: rawWatchRow(k.Then)},
			fmt.Sprintf("~ %s  now %s  ->  then %s", usertext.Sanitize(codec.Format(keys[i])), rawRowText(k.Now), thenText(k.Then)))
	}
	return plan, nil
}

// putBack writes the plan in one commit and says so, or names the keys
// that changed since they were read (nothing is written then).
func putBack(ctx context.Context, app *App, live *store.Store, plan history.PutBackPlan, at string) error {
	stamp, err := history.PutBack(ctx, live, plan)
	if errors.Is(err, history.ErrPutBackRefused) {
		return NotDone("%v", err)
	}
	if err != nil {
		return err
	}
	ops, same := len(plan.Ops), plan.Same()
	text := fmt.Sprintf("put back %s as at %s", plural(int64(ops), "key"), at)
	if stamp != "" {
		text += " (new versionstamp " + stamp + ")"
	}
	app.Out.Result(putBackJSON{OK: true, Keys: ops, Same: same, Versionstamp: stampOrNull(stamp), At: at}, text+"; kvdeck undo reverts it")
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
