package cli

import (
	"kvdeck/store"
)

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
	s, err := app.Open(app.Context(), Opening{})
	if err != nil {
		return err
	}
	return app.Pinned(func(now int64) error {
		return s.DumpAll(app.Context(), prefix, func(e store.Entry) error {
			app.Out.Entry(e, now, true)
			return nil
		})
	})
}
