package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storeconfig"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// FleetFindCmd looks a key (or a prefix) up in every saved store.
type FleetFindCmd struct {
	Key         string        `arg:"" name:"key" help:"Key text (e.g. '[\"users\", \"alice\"]') or tagged JSON; with --prefix, the prefix."`
	Prefix      bool          `name:"prefix" help:"Count the live keys under KEY in each store (at most --max, then N+) instead of looking KEY up."`
	Max         int           `name:"max" default:"1000" help:"With --prefix: count at most this many keys per store."`
	Group       string        `name:"group" short:"g" placeholder:"GROUP" predictor:"group" help:"Only the stores of this group."`
	Concurrency int           `name:"concurrency" default:"16" help:"How many stores are read at once."`
	Timeout     time.Duration `name:"timeout" placeholder:"DURATION" default:"15s" help:"How long a server may take before its store is an error row."`
}

// fleetFindRow is one store's answer.
type fleetFindRow struct {
	Store  string `json:"store"`
	Group  string `json:"group,omitempty"`
	URL    string `json:"url"`
	Status string `json:"status"` // found, absent, error
	Error  string `json:"error,omitempty"`
	// A key: its stamp and expiry where found.
	Versionstamp *string `json:"versionstamp,omitempty"`
	ExpiresAt    *int64  `json:"expiresAt,omitempty"`
	// A prefix: the live keys under it, at most --max; More when there
	// are others.
	Count *int  `json:"count,omitempty"`
	More  bool  `json:"more,omitempty"`
	MS    int64 `json:"ms"`
	// state is an error row's state in a word or two (fleetState).
	state string
}

// Run prints one row per store in name order (a table, or JSON lines).
// Exit 2 when a store is an error row, else 1 when no store holds the key
// (or any key under the prefix), else 0.
func (c *FleetFindCmd) Run(app *App) error {
	if err := fleetLimits(c.Concurrency, c.Timeout); err != nil {
		return err
	}
	if c.Max < 1 {
		return fmt.Errorf("--max %d: must be at least 1", c.Max)
	}
	key, err := ParseKey("KEY", c.Key)
	if err != nil {
		return err
	}
	cfg, stores, err := fleetStores(app, c.Group)
	if err != nil {
		return err
	}
	cols := []fleetColumn{{head: "STORE"}, {head: "GROUP", give: 1}, {head: "STATUS"}, {head: "VERSIONSTAMP", give: 3}, {head: "EXPIRES", give: 2}}
	if c.Prefix {
		cols = []fleetColumn{{head: "STORE"}, {head: "GROUP", give: 1}, {head: "KEYS"}}
	}
	var lines []fleetLine
	failed, found := false, false
	fleetEach(app, stores, c.Concurrency,
		func(s storeconfig.Store) fleetFindRow { return c.look(app, cfg, s, key) },
		func(s storeconfig.Store, err error) fleetFindRow {
			return fleetFindRow{Store: s.Name, Group: s.Group, URL: s.URL, Status: "error", Error: err.Error(), state: store.Trouble(err)}
		},
		func(r fleetFindRow) {
			failed = failed || r.Status == "error"
			found = found || r.Status == "found"
			if app.Out.JSON() {
				app.Out.Object(r)
				return
			}
			lines = append(lines, c.line(r, len(cols)))
		})
	if !app.Out.JSON() {
		table := newFleetTable(cols)
		text := table.text(lines)
		if width, _, tty := app.Out.Terminal(); tty {
			text = table.fitted(lines, width)
		}
		app.Out.Textf("%s", strings.Join(text, "\n"))
	}
	switch {
	case failed:
		return &ExitError{Code: CodeError}
	case !found:
		return NotDone("")
	}
	return nil
}

// look reads key (or counts under it) in one store, opened read-only.
func (c *FleetFindCmd) look(app *App, cfg *storeconfig.Config, s storeconfig.Store, key codec.Key) fleetFindRow {
	start := time.Now()
	r := fleetFindRow{Store: s.Name, Group: s.Group, URL: s.URL, Status: "absent"}
	ctx, cancel, st, token, err := fleetOpen(app, cfg, s, c.Timeout)
	defer cancel()
	if err == nil {
		defer st.Close()
		err = c.read(ctx, st, key, &r)
	}
	if err != nil {
		r = fleetFindRow{Store: s.Name, Group: s.Group, URL: s.URL, Status: "error", Error: fleetError(err, token), state: store.Trouble(err)}
	}
	r.MS = time.Since(start).Milliseconds()
	return r
}

// line is one row of the table, every cell sanitised: an error row
// has its state where the status (or the count) goes, a dash in the
// other columns, and its error as its note.
func (c *FleetFindCmd) line(r fleetFindRow, columns int) fleetLine {
	cells := []string{r.Store, orDash(r.Group)}
	switch {
	case r.Status == "error":
		cells = append(cells, r.state)
		for len(cells) < columns {
			cells = append(cells, "-")
		}
		return fleetLine{store: r.Store, cells: fleetCells(cells...), note: r.Error}
	case c.Prefix:
		n := "0"
		if r.Count != nil {
			n = fmt.Sprint(*r.Count)
		}
		if r.More {
			n += "+"
		}
		cells = append(cells, n)
	case r.Status == "found":
		exp := "-"
		if r.ExpiresAt != nil {
			exp = usertext.FormatTimeFixed(*r.ExpiresAt)
		}
		cells = append(cells, "found", *r.Versionstamp, exp)
	default:
		cells = append(cells, "absent", "-", "-")
	}
	return fleetLine{store: r.Store, cells: fleetCells(cells...)}
}

// read fills r from one open store: the key's stamp and expiry, or with
// --prefix the count under it (up to --max).
func (c *FleetFindCmd) read(ctx context.Context, st *store.Store, key codec.Key, r *fleetFindRow) error {
	if c.Prefix {
		page, err := st.List(ctx, store.ListOptions{Prefix: key, Limit: c.Max})
		if err != nil {
			return err
		}
		n := len(page.Entries)
		r.Count, r.More = &n, page.Cursor != ""
		if n > 0 {
			r.Status = "found"
		}
		return nil
	}
	e, ok, err := st.Get(ctx, key)
	if err == nil && ok {
		r.Status, r.ExpiresAt = "found", e.ExpiresAt
		stamp := entryStamp(e)
		r.Versionstamp = &stamp
	}
	return err
}
