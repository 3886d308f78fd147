package cli

import (
	"fmt"

	"kvdeck/store"
)

// ListCmd lists live entries.
type ListCmd struct {
	Prefix  string `arg:"" optional:"" name:"prefix" help:"Key prefix (the key equal to it is listed too); all keys when omitted."`
	Start   string `name:"start" placeholder:"KEY" help:"Inclusive lower bound."`
	End     string `name:"end" placeholder:"KEY" help:"Exclusive upper bound."`
	Limit   int    `name:"limit" placeholder:"N" help:"At most N entries (0: no limit)."`
	Reverse bool   `name:"reverse" help:"Descending key order."`
}

// Run streams the entries page by page (store.Scan), never loading the
// whole range.
func (c *ListCmd) Run(app *App) error {
	prefix, err := ParseOptionalKey("PREFIX", c.Prefix)
	if err != nil {
		return err
	}
	start, err := ParseOptionalKey("--start", c.Start)
	if err != nil {
		return err
	}
	end, err := ParseOptionalKey("--end", c.End)
	if err != nil {
		return err
	}
	if c.Limit < 0 {
		return fmt.Errorf("--limit %d: must not be negative", c.Limit)
	}
	s, err := app.Open()
	if err != nil {
		return err
	}
	opts := store.ListOptions{Prefix: prefix, Start: start, End: end, Limit: c.Limit, Reverse: c.Reverse}
	return s.Scan(app.Context(), opts, func(e store.Entry) error {
		app.Out.Entry(e, app.Now(), false)
		return nil
	})
}

// DumpCmd prints every physical row.
type DumpCmd struct {
	Prefix string `arg:"" optional:"" name:"prefix" help:"Only rows under this key prefix; every row (undecodable ones included) when omitted."`
}

// DefaultJSON makes dump print JSON lines unless --output text is given:
// its output is load's input.
func (c *DumpCmd) DefaultJSON() bool { return true }

// Run streams every row in key order, expired ones flagged at the
// (virtual) now, undecodable ones with an error and their raw hex.
func (c *DumpCmd) Run(app *App) error {
	prefix, err := ParseOptionalKey("PREFIX", c.Prefix)
	if err != nil {
		return err
	}
	s, err := app.Open()
	if err != nil {
		return err
	}
	return app.Pinned(func(now int64) error {
		return s.Dump(app.Context(), prefix, func(e store.Entry) error {
			app.Out.Entry(e, now, true)
			return nil
		})
	})
}
